from typing import Iterator, TypeVar

FrameT = TypeVar("FrameT", bound="Frame")


class Column:
    def total(self, skipna=True):
        return 0


class Frame:
    def copy(self: FrameT, deep=True) -> FrameT:
        return self

    def __getitem__(self, key) -> Column:
        return Column()

    def __iter__(self) -> Iterator[Column]:
        return iter([Column()])


class Table(Frame):
    def width(self, strict=False):
        return 1


class Axis:
    def __get__(self, obj, owner=None):
        return 1

    def labels(self, sort=False):
        return []


class Indexed:
    index = Axis()
