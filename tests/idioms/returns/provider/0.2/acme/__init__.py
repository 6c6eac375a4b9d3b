"""Factories without return annotations, and @overload sets beside their implementation."""

from typing import Literal, overload


class Client:
    def send(self, data):
        return data


class Server:
    def send(self, data, timeout=None):
        return data


def make_client(url):
    return Client()


def make_configured(url):
    client = Client()
    client.url = url
    return client


def make_either(flag):
    if flag:
        return Client()
    return Server()


def make_maybe(flag):
    if flag:
        return Client()


class Factory:
    def build(self):
        return Client()


@overload
def connect(url: str, raw: Literal[True]) -> Client: ...
@overload
def connect(url: str, raw: Literal[False] = ...) -> Client: ...
def connect(url, raw=False):
    return Client()


@overload
def open_any(kind: Literal["client"]) -> Client: ...
@overload
def open_any(kind: Literal["server"]) -> Server: ...
def open_any(kind):
    return Client() if kind == "client" else Server()


@overload
def reindex(data, inplace: Literal[False] = ...) -> Client: ...
@overload
def reindex(data, inplace: Literal[True]) -> None: ...
def reindex(data, inplace=False):
    return None if inplace else Client()
