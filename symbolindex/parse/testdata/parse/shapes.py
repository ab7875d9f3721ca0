"""Geometry helpers."""
import math
from dataclasses import dataclass, field

MAX_SIDES = 12
default_color = "red"


@dataclass(frozen=True)
class Point:
    """A point in the plane."""

    x: float = 0.0
    y: float = 0.0

    @property
    def norm(self) -> float:
        """Distance from the origin."""

        def square(v):
            return v * v

        return math.sqrt(square(self.x) + square(self.y))

    class Meta:
        ordering = ["x"]

        def describe(self):
            return "meta"


async def fetch_shape(client, shape_id: int) -> "Point":
    '''Fetch one shape
       by id.'''
    data = await client.get(f"/shapes/{shape_id}")
    return Point(**data)
