"""Fictional databases generated from a seed: four domains, 3 to 12 tables by level.

A domain is a list of table specs in dependency order (a table's foreign keys point only at
tables before it), so the first ``n`` tables of a domain always form a valid schema. The
data has what real tables have and a careless query gets wrong: NULLs in some columns
(foreign keys included), duplicate names, dates and names with apostrophes.

Values are kept backend-neutral: integers, decimals with two places (``NUMERIC(10,2)`` on
PostgreSQL, ``REAL`` on SQLite), ISO dates (``DATE`` on PostgreSQL, ``TEXT`` on SQLite) and
text, so the same query returns the same rows on both backends.
"""

from __future__ import annotations

import dataclasses
import datetime
from typing import Any

import numpy as np

MIN_TABLES, MAX_TABLES = 3, 12


@dataclasses.dataclass(frozen=True)
class Column:
    """One column of a table spec.

    Attributes:
        name: The column's name.
        kind: ``id``, ``fk``, ``name``, ``category``, ``int``, ``money`` or ``date``.
        arg: The kind's parameter: the referenced table (``fk``), the name pool (``name``),
            the values (``category``), ``(low, high)`` (``int``, ``money``, ``date`` as
            years).
        null_rate: The share of rows where the column is NULL.
    """

    name: str
    kind: str
    arg: Any = None
    null_rate: float = 0.0

    @property
    def numeric(self) -> bool:
        """Whether the column holds a measure (integers or money)."""
        return self.kind in ("int", "money")


@dataclasses.dataclass(frozen=True)
class TableSpec:
    """A table: its name, what one row is called, its columns (the first is the id)."""

    name: str
    noun: str
    columns: tuple[Column, ...]

    def column(self, name: str) -> Column:
        """The column called ``name``."""
        return next(c for c in self.columns if c.name == name)


def _id() -> Column:
    return Column("id", "id")


def _t(name: str, noun: str, *columns: Column) -> TableSpec:
    return TableSpec(name, noun, (_id(), *columns))


C = Column
_CITIES = ("Avonlea", "Brightwater", "Cedar Falls", "Dunmore", "Eastport", "Fairhaven")
_COUNTRIES = ("Arcadia", "Borduria", "Genovia", "Latveria", "Wakanda")

DOMAINS: dict[str, tuple[TableSpec, ...]] = {
    "shop": (
        _t("customers", "customer", C("name", "name", "person"),
           C("city", "category", _CITIES, 0.1), C("joined", "date", (2019, 2024))),
        _t("products", "product", C("name", "name", "product"),
           C("category", "category", ("kitchen", "garden", "toys", "books", "tools")),
           C("unit_price", "money", (2, 400))),
        _t("orders", "order", C("customer_id", "fk", "customers", 0.05),
           C("product_id", "fk", "products"), C("quantity", "int", (1, 12)),
           C("order_date", "date", (2022, 2024)),
           C("status", "category", ("placed", "shipped", "delivered", "cancelled"))),
        _t("reviews", "review", C("product_id", "fk", "products"),
           C("customer_id", "fk", "customers"), C("rating", "int", (1, 5), 0.15)),
        _t("suppliers", "supplier", C("name", "name", "company"),
           C("country", "category", _COUNTRIES)),
        _t("shipments", "shipment", C("order_id", "fk", "orders"),
           C("supplier_id", "fk", "suppliers"), C("shipped_on", "date", (2022, 2024), 0.1),
           C("cost", "money", (3, 90))),
        _t("stores", "store", C("name", "name", "company"), C("city", "category", _CITIES)),
        _t("employees", "employee", C("name", "name", "person"),
           C("store_id", "fk", "stores", 0.1), C("salary", "money", (1800, 6500)),
           C("hired", "date", (2010, 2024))),
        _t("returns", "return", C("order_id", "fk", "orders"),
           C("reason", "category", ("damaged", "late", "wrong size", "changed mind")),
           C("refund", "money", (1, 300), 0.2)),
        _t("coupons", "coupon", C("name", "name", "code"), C("discount", "int", (5, 50))),
        _t("warehouses", "warehouse", C("name", "name", "company"),
           C("city", "category", _CITIES), C("capacity", "int", (500, 9000))),
        _t("stock", "stock record", C("product_id", "fk", "products"),
           C("warehouse_id", "fk", "warehouses"), C("units", "int", (0, 400))),
    ),
    "school": (
        _t("students", "student", C("name", "name", "person"),
           C("grade_level", "int", (9, 12)), C("enrolled", "date", (2020, 2024)),
           C("city", "category", _CITIES, 0.1)),
        _t("teachers", "teacher", C("name", "name", "person"),
           C("department", "category", ("maths", "science", "history", "languages", "arts")),
           C("salary", "money", (2500, 7000))),
        _t("courses", "course", C("name", "name", "course"),
           C("teacher_id", "fk", "teachers", 0.1), C("credits", "int", (1, 6))),
        _t("enrollments", "enrollment", C("student_id", "fk", "students"),
           C("course_id", "fk", "courses"), C("score", "int", (20, 100), 0.15)),
        _t("clubs", "club", C("name", "name", "club"), C("founded", "date", (1990, 2023))),
        _t("memberships", "membership", C("student_id", "fk", "students"),
           C("club_id", "fk", "clubs"), C("joined", "date", (2020, 2024))),
        _t("classrooms", "classroom", C("name", "name", "room"),
           C("building", "category", ("north", "south", "east", "annex")),
           C("capacity", "int", (10, 60))),
        _t("exams", "exam", C("course_id", "fk", "courses"), C("held_on", "date", (2023, 2024)),
           C("max_points", "int", (20, 120))),
        _t("results", "exam result", C("exam_id", "fk", "exams"),
           C("student_id", "fk", "students"), C("points", "int", (0, 120), 0.1)),
        _t("books", "book", C("name", "name", "book"), C("pages", "int", (40, 900))),
        _t("loans", "loan", C("book_id", "fk", "books"), C("student_id", "fk", "students"),
           C("borrowed", "date", (2023, 2024)), C("fine", "money", (0, 20), 0.5)),
        _t("guardians", "guardian", C("name", "name", "person"),
           C("student_id", "fk", "students"), C("city", "category", _CITIES)),
    ),
    "airline": (
        _t("airports", "airport", C("name", "name", "airport"),
           C("country", "category", _COUNTRIES), C("runways", "int", (1, 6))),
        _t("aircraft", "aircraft", C("name", "name", "aircraft"),
           C("model", "category", ("A220", "A320", "B737", "B787", "E190")),
           C("seats", "int", (70, 330))),
        _t("flights", "flight", C("origin_id", "fk", "airports"),
           C("destination_id", "fk", "airports"), C("aircraft_id", "fk", "aircraft", 0.05),
           C("departs", "date", (2024, 2024)), C("distance", "int", (150, 9000))),
        _t("passengers", "passenger", C("name", "name", "person"),
           C("nationality", "category", _COUNTRIES, 0.1), C("born", "date", (1950, 2010))),
        _t("bookings", "booking", C("flight_id", "fk", "flights"),
           C("passenger_id", "fk", "passengers"), C("fare", "money", (40, 2500)),
           C("cabin", "category", ("economy", "premium", "business", "first"))),
        _t("crew", "crew member", C("name", "name", "person"),
           C("role", "category", ("pilot", "first officer", "purser", "attendant")),
           C("base_id", "fk", "airports")),
        _t("assignments", "assignment", C("flight_id", "fk", "flights"),
           C("crew_id", "fk", "crew"), C("hours", "int", (1, 15))),
        _t("baggage", "bag", C("booking_id", "fk", "bookings"),
           C("weight", "int", (2, 32), 0.1)),
        _t("delays", "delay", C("flight_id", "fk", "flights"), C("minutes", "int", (5, 600)),
           C("cause", "category", ("weather", "technical", "crew", "air traffic"))),
        _t("loyalty", "loyalty account", C("passenger_id", "fk", "passengers"),
           C("tier", "category", ("blue", "silver", "gold")), C("points", "int", (0, 90000))),
        _t("maintenance", "maintenance job", C("aircraft_id", "fk", "aircraft"),
           C("done_on", "date", (2022, 2024)), C("cost", "money", (500, 90000))),
        _t("gates", "gate", C("name", "name", "gate"), C("airport_id", "fk", "airports"),
           C("stands", "int", (1, 4))),
    ),
    "hospital": (
        _t("departments", "department", C("name", "name", "department"),
           C("floor", "int", (0, 9)), C("budget", "money", (50000, 900000))),
        _t("doctors", "doctor", C("name", "name", "person"),
           C("department_id", "fk", "departments", 0.05), C("salary", "money", (4000, 15000)),
           C("hired", "date", (2000, 2024))),
        _t("patients", "patient", C("name", "name", "person"), C("born", "date", (1935, 2023)),
           C("city", "category", _CITIES, 0.1)),
        _t("visits", "visit", C("patient_id", "fk", "patients"),
           C("doctor_id", "fk", "doctors"), C("visit_date", "date", (2023, 2024)),
           C("cost", "money", (20, 900))),
        _t("prescriptions", "prescription", C("visit_id", "fk", "visits"),
           C("drug", "category", ("amoxil", "brufen", "calpol", "zyrtec", "ventolin")),
           C("dose_mg", "int", (5, 1000))),
        _t("wards", "ward", C("name", "name", "ward"), C("department_id", "fk", "departments"),
           C("beds", "int", (4, 40))),
        _t("admissions", "admission", C("patient_id", "fk", "patients"),
           C("ward_id", "fk", "wards"), C("admitted", "date", (2023, 2024)),
           C("nights", "int", (1, 30), 0.2)),
        _t("nurses", "nurse", C("name", "name", "person"), C("ward_id", "fk", "wards", 0.1),
           C("salary", "money", (2500, 6000))),
        _t("lab_tests", "lab test", C("visit_id", "fk", "visits"),
           C("test", "category", ("blood count", "glucose", "lipids", "thyroid")),
           C("value", "money", (0, 300), 0.2)),
        _t("insurers", "insurer", C("name", "name", "company"),
           C("country", "category", _COUNTRIES)),
        _t("policies", "policy", C("patient_id", "fk", "patients"),
           C("insurer_id", "fk", "insurers"), C("premium", "money", (20, 700))),
        _t("surgeries", "surgery", C("patient_id", "fk", "patients"),
           C("doctor_id", "fk", "doctors"), C("performed", "date", (2022, 2024)),
           C("minutes", "int", (20, 600))),
    ),
}

_FIRST = ("Ada", "Bram", "Chloe", "Dev", "Elif", "Femi", "Greta", "Hugo", "Ines", "Jun",
          "Kofi", "Lena", "Mateo", "Nia", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tariq")
_LAST = ("O'Brien", "Novak", "D'Souza", "Lindqvist", "Okafor", "Tanaka", "Moreau", "Silva",
         "Kowalski", "MacLeod", "Haddad", "Ferreira")
_ADJECTIVES = ("Blue", "Quiet", "Rapid", "Golden", "Little", "North", "Silver", "Bright",
               "Old", "Green")
_NOUNS = {
    "product": ("Kettle", "Lamp", "Trowel", "Puzzle", "Atlas", "Wrench", "Teapot", "Kite"),
    "company": ("Traders", "Supply Co", "& Sons", "Logistics", "Goods", "Works"),
    "code": ("SAVE", "DEAL", "GIFT", "WELCOME"),
    "course": ("Algebra", "Biology", "Poetry", "Chemistry", "Drama", "Geometry"),
    "club": ("Chess Club", "Choir", "Robotics", "Debate", "Rowing"),
    "room": ("Lab", "Studio", "Hall", "Room"),
    "book": ("Voyage", "Garden", "Riddle", "Harbour", "Lantern", "Meadow"),
    "airport": ("Field", "International", "Regional", "Airpark"),
    "aircraft": ("Spirit", "Star", "Falcon", "Comet", "Swift"),
    "gate": ("Gate",),
    "department": ("Cardiology", "Oncology", "Radiology", "Neurology", "Paediatrics"),
    "ward": ("Ward", "Wing", "Unit"),
}


@dataclasses.dataclass(frozen=True)
class Database:
    """A generated database: the domain, its table specs and their rows.

    Attributes:
        domain: The domain's name (``shop``, ``school``, ``airline``, ``hospital``).
        tables: The table specs, foreign-key targets first.
        rows: Per table name, the rows as tuples in column order (ids are 1..n).
    """

    domain: str
    tables: tuple[TableSpec, ...]
    rows: dict[str, list[tuple[Any, ...]]]

    def table(self, name: str) -> TableSpec:
        """The table spec called ``name``."""
        return next(t for t in self.tables if t.name == name)

    def values(self, table: str, column: str) -> list[Any]:
        """One column's values, in row order."""
        index = [c.name for c in self.table(table).columns].index(column)
        return [row[index] for row in self.rows[table]]


def _name(rng: np.random.Generator, pool: str, index: int) -> str:
    if pool == "person":
        return f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"
    nouns = _NOUNS[pool]
    if pool == "code":
        return f"{rng.choice(nouns)}{int(rng.integers(1, 10)) * 5}"
    if pool in ("gate", "room"):
        return f"{rng.choice(nouns)} {index}"
    return f"{rng.choice(_ADJECTIVES)} {rng.choice(nouns)}"


def _value(rng: np.random.Generator, column: Column, sizes: dict[str, int], index: int) -> Any:
    if column.null_rate and rng.random() < column.null_rate:
        return None
    if column.kind == "fk":
        return int(rng.integers(1, sizes[column.arg] + 1))
    if column.kind == "name":
        return _name(rng, column.arg, index)
    if column.kind == "category":
        return str(rng.choice(column.arg))
    if column.kind == "int":
        return int(rng.integers(column.arg[0], column.arg[1] + 1))
    if column.kind == "money":
        cents = int(rng.integers(column.arg[0] * 100, column.arg[1] * 100 + 1))
        return round(cents / 100, 2)
    if column.kind == "date":
        start = datetime.date(column.arg[0], 1, 1)
        days = (datetime.date(column.arg[1], 12, 31) - start).days
        return (start + datetime.timedelta(days=int(rng.integers(0, days + 1)))).isoformat()
    raise ValueError(f"unknown column kind {column.kind!r}")


def table_count(level: int) -> int:
    """How many tables a database of ``level`` (1-10) has: 3 at level 1, 12 at level 10."""
    return MIN_TABLES + round((level - 1) * (MAX_TABLES - MIN_TABLES) / 9)


def generate_database(rng: np.random.Generator, level: int, domain: str | None = None) -> Database:
    """Draws a database: a domain (or the one named), its first tables by level, and rows.

    Entity tables (at most one foreign key) get 8 + 3 * level rows or so; link tables (two
    or more) twice that.
    """
    name = domain if domain is not None else str(rng.choice(sorted(DOMAINS)))
    if name not in DOMAINS:
        raise ValueError(f"unknown domain {name!r}; choose from {sorted(DOMAINS)}")
    tables = DOMAINS[name][: table_count(level)]
    sizes: dict[str, int] = {}
    rows: dict[str, list[tuple[Any, ...]]] = {}
    for spec in tables:
        links = sum(c.kind == "fk" for c in spec.columns)
        n = int(rng.integers(8, 14)) + 3 * level
        sizes[spec.name] = n * 2 if links >= 2 else n
        rows[spec.name] = [
            (i, *(_value(rng, c, sizes, i) for c in spec.columns[1:]))
            for i in range(1, sizes[spec.name] + 1)
        ]
    return Database(name, tables, rows)
