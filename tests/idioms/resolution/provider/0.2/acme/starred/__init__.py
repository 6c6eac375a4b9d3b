from acme.starred._listed import *  # noqa: F403
from acme.starred._extended import *  # noqa: F403
