"""Keywords the provider starts to warn about are warned about here, before they break."""

from acme.net import fetch, resolve


def get(url):
    return fetch(url, retries=3)  # expect: deprecated


def get_unverified(url):
    return fetch(url, verify=False)  # expect: deprecated


def get_plain(url):
    return fetch(url, timeout=5)  # near-miss: timeout is not deprecated


def lookup(host):
    return resolve(host, family=4)  # near-miss: a warning about values, not about a keyword
