"""The built-in suite's tools: small, deterministic, offline. Each returns what a task's
follow-up needs, and two of them refuse a wrong argument with a message saying how to call
them right (the tasks that must be retried)."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel

from autobyteus_like.tools import tool

__all__ = ["TOOLS"]

_WEATHER = {"paris": 18, "tokyo": 24, "oslo": 4, "chicago": 10, "arlington": 21, "london": 12}


@tool
def get_weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
    """The current weather in a city."""
    celsius = _WEATHER.get(city.strip().lower(), 15)
    degrees = celsius if unit == "celsius" else round(celsius * 9 / 5 + 32)
    return f"{city}: sunny, {degrees} degrees {unit}"


@tool
def add(a: float, b: float) -> float:
    """Add two numbers."""
    total = a + b
    return int(total) if total == int(total) else total


class Address(BaseModel):
    street: str
    city: str


class Contact(BaseModel):
    name: str
    email: str | None = None
    address: Address


@tool
def create_contact(contact: Contact) -> str:
    """Save a contact with a postal address."""
    return f"saved {contact.name} ({contact.address.city})"


class Item(BaseModel):
    name: str
    quantity: int


@tool
def add_items(items: list[Item]) -> str:
    """Put items on the shopping list."""
    return f"added {sum(item.quantity for item in items)} items"


@tool
def set_thermostat(mode: Literal["heat", "cool", "off"], temperature: float | None = None) -> str:
    """Set the thermostat's mode and, for heat or cool, its target temperature in celsius."""
    return f"thermostat: {mode}" + (f" at {temperature}" if temperature is not None else "")


@tool
def write_file(path: str, content: str) -> str:
    """Write text to a file (kept in memory for the eval)."""
    return f"wrote {len(content)} characters to {path}"


@tool
def find_user(name: str) -> dict[str, str]:
    """Look a user up by name: their id and home city."""
    if "grace" in name.lower():
        return {"id": "u-42", "name": "Grace Hopper", "city": "Arlington"}
    return {"error": f"no user named {name}"}


@tool
def get_orders(user_id: str) -> list[str]:
    """The orders of a user, by user id (ids look like u-12)."""
    return ["order-7: 2 books", "order-9: 1 lamp"] if user_id == "u-42" else []


@tool
def schedule_meeting(date: str, topic: str) -> str:
    """Put a meeting in the calendar. ``date`` is YYYY-MM-DD."""
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", date):
        raise ValueError(f"date {date!r} is not YYYY-MM-DD: write it like 2025-03-05")
    return f"meeting about {topic} on {date}"


@tool
def book_room(room: str, people: int) -> str:
    """Book a meeting room for a number of people."""
    if room not in ("Aurora", "Borealis"):
        raise ValueError(f"no room {room!r}: the rooms are 'Aurora' and 'Borealis' "
                         "(the names are case-sensitive)")
    return f"booked {room} for {people}"


TOOLS = [get_weather, add, create_contact, add_items, set_thermostat, write_file, find_user,
         get_orders, schedule_meeting, book_room]
