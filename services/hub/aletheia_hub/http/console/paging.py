"""Pages of a long list: how many there are, and which page numbers the pager links."""

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlencode

NEAR: Final = 2  # page numbers linked on each side of the current one


@dataclass(frozen=True, slots=True)
class Pager:
    """Where a list stands: its page, its last page (None where only whether another page
    follows is known, as for a ranked search) and the address of its pages."""

    path: str
    params: tuple[tuple[str, str], ...]  # the list's filters, without the page
    page: int
    last: int | None
    has_next: bool

    def href(self, page: int) -> str:
        return f"{self.path}?{urlencode((*self.params, ('page', str(page))))}"

    @property
    def numbers(self) -> list[int | None]:
        """The page numbers to link, None where a run of them is left out."""
        last = self.last if self.last is not None else self.page + self.has_next
        return page_numbers(self.page, last)


def counted(
    path: str, params: Iterable[tuple[str, str]], page: int, total: int, size: int
) -> Pager:
    """The pager of a list of `total` items, `size` a page."""
    last = last_page(total, size)
    return Pager(path, _kept(params), page, last, page < last)


def open_ended(path: str, params: Iterable[tuple[str, str]], page: int, has_next: bool) -> Pager:
    """The pager of a list whose length is not known."""
    return Pager(path, _kept(params), page, None, has_next)


def last_page(total: int, size: int) -> int:
    """The number of the last page of `total` items, `size` a page (1 for none)."""
    return max((total + size - 1) // size, 1)


def page_numbers(current: int, last: int) -> list[int | None]:
    """1, the pages near the current one, and the last, with None for each gap."""
    near = range(current - NEAR, current + NEAR + 1)
    wanted = sorted({1, last, *near} & set(range(1, last + 1)))
    numbers: list[int | None] = []
    previous = 0
    for number in wanted:
        if previous and number - previous > 1:
            numbers.append(None)
        numbers.append(number)
        previous = number
    return numbers


def _kept(params: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """The filters worth repeating in a page's address: those given, never the page."""
    return tuple((name, value) for name, value in params if value and name != "page")
