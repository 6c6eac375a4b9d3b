"""What the analysis cannot know from one release, but can from two (decided by difference)."""

from acme import tools
from acme.cases import Case, Keyed
