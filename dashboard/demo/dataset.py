"""The demo data set: every endpoint's raw payloads, keyed as the simulator looks them up."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import date

from dashboard.demo.pools import DEFAULT_SEED, DEMO_LABEL


@dataclass
class DemoDataset:
    """Raw payloads of every endpoint, keyed as the simulator looks them up.

    A key absent from a per-fund dict means "no data" (the simulator answers 204); a
    (first path parameter, endpoint id) pair in `empty_200` answers 200 with an empty body.
    The data set is plain mutable data: tests may add a fund or change a record.

    The legacy records (E1..E20) are the single source of the data both layouts serve. The
    successor layout converts them on the fly and adds what only it publishes, kept apart in
    `fund_details`, `successor_amcs`, `company_licences`, `business_acts` and `alert_details`
    (generated from their own random streams, so the legacy records are the same with or without them).
    """

    seed: int = DEFAULT_SEED
    today: date | None = None
    periods: list[str] = field(default_factory=list)
    amcs: list[dict] = field(default_factory=list)  # demo-only: unique_id, name_th, name_en, abbr
    funds: list[dict] = field(default_factory=list)  # E1 / E2 Fund records
    classes: dict[str, list[dict]] = field(default_factory=dict)  # E4
    investment: dict[str, list[dict]] = field(default_factory=dict)  # E5
    holdings: dict[str, dict[str, list[dict]]] = field(default_factory=dict)  # E6: proj_id -> period -> rows
    project_type: dict[str, dict] = field(default_factory=dict)  # E7
    suitability: dict[str, dict] = field(default_factory=dict)  # E8
    return_estimate: dict[str, dict] = field(default_factory=dict)  # E9
    performance: dict[str, list[dict]] = field(default_factory=dict)  # E10
    redemption: dict[str, dict] = field(default_factory=dict)  # E11
    fees: dict[str, list[dict]] = field(default_factory=dict)  # E12
    allocation: dict[str, list[dict]] = field(default_factory=dict)  # E13
    urls: dict[str, dict] = field(default_factory=dict)  # E14
    empty_200: set[tuple[str, str]] = field(default_factory=set)
    licensees: list[dict] = field(default_factory=list)  # E15 (searched by name)
    former_licensees: list[dict] = field(default_factory=list)  # in E16 (see `company_register`)
    approvals: dict[str, list[dict]] = field(default_factory=dict)  # E17: person unique_id ->
    duties: dict[str, list[dict]] = field(default_factory=dict)  # E18: person unique_id ->
    enforcement: dict[tuple[str, str], dict] = field(default_factory=dict)  # E19: (unique_id, case_id) ->
    enforcement_types: dict[tuple[str, str], int] = field(default_factory=dict)  # demo-only: action type 1..5
    alerts: dict[str, dict] = field(default_factory=dict)  # E20: case_id ->
    persons: list[dict] = field(default_factory=list)  # demo-only index of people for the UI
    # Served only on the successor layout (/v2/fund, /v1/license-check; see dashboard/demo/successor.py),
    # never on the legacy paths: what the current service publishes beyond the legacy records.
    fund_details: dict[str, dict] = field(default_factory=dict)  # proj_id -> project, class and factsheet details
    successor_amcs: list[dict] = field(default_factory=list)  # general-info/amcs records
    company_licences: dict[str, list[dict]] = field(default_factory=dict)  # company unique_id -> licence records
    business_acts: dict[str, list[dict]] = field(default_factory=dict)  # company unique_id -> business activities
    alert_details: dict[str, dict] = field(default_factory=dict)  # case_id -> investor-alert case record
    # proj_id -> the fund's NAV profile (dashboard/demo/nav.py): daily-info/nav, dividend-history and the
    # legacy daily NAV are computed from it; a fund without one has no NAV yet.
    nav_profiles: dict[str, dict] = field(default_factory=dict)
    label: str = DEMO_LABEL
    # "small" (the default demo, about 100 funds) or "market" (the whole market's size). The
    # simulator treats a market-scale data set as read-only: it builds each whole-market answer once.
    scale: str = "small"

    def __repr__(self) -> str:
        scale = "" if self.scale == "small" else f", scale={self.scale!r}"
        return (f"DemoDataset(seed={self.seed}, today={self.today}{scale}, {len(self.funds)} funds, "
                f"{len(self.holdings)} portfolios, {len(self.licensees)} licensees, {len(self.persons)} persons, "
                f"{len(self.fund_details)} successor fund details)")

    def fund(self, proj_id: str) -> dict | None:
        """The Fund record of `proj_id`, or None."""
        return next((f for f in self.funds if f.get("proj_id") == proj_id), None)

    def amc_ids(self) -> list[str]:
        """Identifiers of the asset management companies, in data-set order."""
        ids = [a["unique_id"] for a in self.amcs]
        for f in self.funds:  # companies of funds added after generation
            if f.get("unique_id") and f["unique_id"] not in ids:
                ids.append(f["unique_id"])
        return ids

    def amc_name(self, unique_id: str, lang: str = "en") -> str:
        """The company's name (English or Thai); the identifier itself when unknown."""
        key = "name_th" if lang == "th" else "name_en"
        for record in (*self.amcs, *self.licensees, *self.former_licensees):
            if record.get("unique_id") == unique_id:
                return record.get(key) or unique_id
        return unique_id

    def company_register(self) -> list[dict]:
        """E16's list, entities that ever held a licence: the licensees people are on duty at (their duties name
        them; a duty at a company missing from the list showed a bare identifier), then the former licensees."""
        on_duty = {d.get("company_unique_id") for duties in self.duties.values() for d in duties}
        return [*(r for r in self.licensees if r.get("unique_id") in on_duty), *self.former_licensees]

    def person(self, unique_id: str) -> dict | None:
        return next((p for p in self.persons if p.get("unique_id") == unique_id), None)

    def add_fund(self, record: dict, **payloads) -> None:
        """Add a Fund record and, by field name (`fees=[...]`, `holdings={period: rows}`), its payloads."""
        self.funds.append(record)
        names = {f.name for f in fields(self)}
        for name, payload in payloads.items():
            if name not in names or not isinstance(getattr(self, name), dict):
                raise TypeError(f"DemoDataset has no per-fund payload {name!r}")
            getattr(self, name)[record["proj_id"]] = payload
