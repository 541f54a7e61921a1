"""The demo's feeder families: Thai feeder funds of shared foreign master funds, so that every case of
the master matching (dashboard.market.feeders) is in the demo data set.

Added last, on streams of their own ("feeders"), so no fund that existed before changes. The cases:

- Global Quality: four feeders at three companies (hedged and unhedged projects at one company, a fund
  with several unit classes); three file the master's ISIN in their holdings, one publishes no holdings
  and is matched by the master's name (spelled differently: share class, currency, Thai words); one holds
  another share class of the master (another ISIN of the same domicile and name).
- Asia Leaders: two feeders, no holdings filed by either: matched by the master's name alone.
- Frontier Ventures: one feeder whose master no other Thai fund names (an unmatched master name).
- World Income: two feeders file two different master ISINs under one name (two share-class lines of
  two different funds), and a third, with no holdings, names it: the matching cannot tell which (listed).
- A feeder (management style "AN") naming no master, whose holdings split between two foreign funds
  with neither at 60 % of NAV: listed as undecided.

The NAV of the feeders of one master follow one path (the master's); a hedged project follows its own
hedged path; classes and projects differ by what they charge (the NAV drag).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import timedelta

from dashboard.demo.context import BuildContext
from dashboard.demo.fund_plans import FundPlan
from dashboard.demo.nav import seed_of
from dashboard.demo.pools import ASSET_FOREIGN_FUND, BE_OFFSET, COUNTRY_TH, FUND_KINDS, FX_POLICIES
from dashboard.demo.values import make_isin

HEDGED, DYNAMIC, UNHEDGED = FX_POLICIES


@dataclass(frozen=True)
class DemoFeeder:
    """One demo feeder: what its company files about its master, and what its holdings hold."""

    company: int  # index among the data set's companies (modulo their number)
    suffix: str  # the fund abbreviation after the company's: "GQ-UH"
    theme: str  # the words in its names: "Global Quality"
    master_name: str | None  # feederfund_master_fund as filed
    master_line: tuple[str, str, str] | None  # (issue_code, isin_code, issuer) of its master holding; None: no holdings
    fx_policy: str | None
    classes: tuple[str, ...] = ()
    split: bool = False  # holdings split half and half between two foreign funds (no master at 60 %)
    path: str = ""  # the NAV path it follows (feeders of one master share it)
    drag: float = 1.0  # percent a year its NAV trails the path by (what it charges)
    style: str = "AN"


QUALITY = ("DM-GLOBALQUALITY-I", make_isin("LU", "99D001MST"), "Demo Global Quality Master Fund I-Acc USD")
QUALITY_A = ("DM-GLOBALQUALITY-A", make_isin("LU", "99D001MSA"), "Demo Global Quality Master Fund A-Acc USD")
INCOME_LU = ("DM-WORLDINCOME-I", make_isin("LU", "99D005MST"), "Demo World Income Master Fund I-Acc USD")
INCOME_IE = ("DM-WORLDINCOME-D", make_isin("IE", "99D105MST"), "Demo World Income Master Fund D-Dis EUR")
SPLIT_LINES = (("DM-ASIALEADERS-I", make_isin("LU", "99D003MST"), "Demo Asia Leaders Master Fund I-Acc USD"),
               ("DM-FUTUREMOBILITY-I", make_isin("LU", "99D004MST"), "Demo Future Mobility Master Fund I-Acc USD"))

FEEDERS: tuple[DemoFeeder, ...] = (
    DemoFeeder(1, "GQ-UH", "Global Quality", "Demo Global Quality Master Fund I-Acc USD", QUALITY, UNHEDGED,
               ("A", "E"), path="quality", drag=1.55),
    DemoFeeder(1, "GQ-H", "Global Quality Hedged", "Demo Global Quality Master Fund I-Acc USD", QUALITY, HEDGED,
               path="quality-hedged", drag=1.65),
    DemoFeeder(2, "GQ", "Global Quality", "กองทุน Demo Global Quality Master Fund, A, (USD), Acc", QUALITY_A, DYNAMIC,
               ("A", "SSF"), path="quality", drag=1.25),
    DemoFeeder(3, "GQ", "Global Quality", "DEMO GLOBAL QUALITY MASTER FUND - Class I USD", None, UNHEDGED,
               path="quality", drag=1.95),
    DemoFeeder(4, "AL", "Asia Leaders", "Demo Asia Leaders Master Fund A-Dis USD", None, UNHEDGED,
               path="asia", drag=1.7),
    DemoFeeder(5, "AL", "Asia Leaders", "กองทุนหลัก Demo Asia Leaders Master Fund (Class A USD)", None, HEDGED,
               ("A", "R"), path="asia-hedged", drag=1.4),
    DemoFeeder(6, "FV", "Frontier Ventures", "Demo Frontier Ventures Fund S.A.", None, UNHEDGED,
               path="frontier", drag=2.1),
    DemoFeeder(7, "WI", "World Income", "Demo World Income Master Fund I-Acc USD", INCOME_LU, HEDGED,
               path="income", drag=0.9),
    DemoFeeder(8, "WI", "World Income", "Demo World Income Master Fund D-Dis EUR", INCOME_IE, HEDGED,
               path="income", drag=1.0),
    DemoFeeder(4, "WI", "World Income", "Demo World Income Master Fund", None, DYNAMIC, path="income", drag=1.1),
    DemoFeeder(7, "GO", "Global Opportunities", None, SPLIT_LINES[0], UNHEDGED, split=True, path="split", drag=1.5),
)


class FeederFamilies(BuildContext):
    """The generator's part that appends the demo feeder families (FEEDERS), after every other fund."""

    _feeder_paths: dict[str, DemoFeeder]

    def build_feeder_families(self) -> None:
        out = self.out
        rng = self.sub_rng("feeders")
        used = {int(f["proj_id"][1:5]) for f in out["funds"]}
        numbers = rng.sample([n for n in range(101, 9999) if n not in used], len(FEEDERS))
        abbrs = {f["proj_abbr_name"] for f in out["funds"]}
        self._feeder_paths = {}
        for number, feeder in zip(numbers, FEEDERS):
            company = feeder.company % len(out["amcs"])
            kind = replace(FUND_KINDS["GF"], name_en=f"Demo {{p}} {feeder.theme} Feeder Fund",
                           name_th=f"กองทุนเปิด เดโม {{p}} {feeder.theme} ฟีดเดอร์")
            regis = self.today - timedelta(days=rng.randint(2000, 4000))  # older than the NAV history: one path
            abbr = f"{out['amcs'][company]['abbr']}{feeder.suffix}"
            while abbr in abbrs:
                abbr += "X"
            abbrs.add(abbr)
            plan = FundPlan(proj_id=f"M{number:04d}_{regis.year + BE_OFFSET}", kind=kind, status="RG",
                            amc_index=company, abbr=abbr, class_suffixes=feeder.classes, regis=regis, cancel=None,
                            holdings=feeder.master_line is not None, risk=kind.risk)
            self._feeder_paths[plan.proj_id] = feeder
            self.write_fund(plan)
            fund = out["funds"][-1]
            fund[plan.flag_key] = "1"  # invests abroad
            if plan.proj_id in out["holdings"]:
                self._file_master(out["holdings"][plan.proj_id], feeder)
            self.fund_index[plan.proj_id] = fund
            details = self.fund_details(plan, False, False, False)
            master_country = COUNTRY_TH.get((feeder.master_line or ("", "LU"))[1][:2], COUNTRY_TH["LU"])
            details.update(management_style=feeder.style, feederfund_master_fund=feeder.master_name,
                           feederfund_country=master_country if feeder.master_name else None,
                           exchange_rate_protection_policy=feeder.fx_policy)
            out["fund_details"][plan.proj_id] = details

    @staticmethod
    def _file_master(quarters: dict[str, list[dict]], feeder: DemoFeeder) -> None:
        """Put the feeder's own master in its holdings (the builder drew one at random), or split it in two."""
        for rows in quarters.values():
            funds = [r for r in rows if r["assetliab_id"] == ASSET_FOREIGN_FUND]
            if not funds:
                continue
            line = max(funds, key=lambda r: float(r["percent_nav"]))
            line["issue_code"], line["isin_code"], line["issuer"] = feeder.master_line
            if feeder.split:
                half = {"percent_nav": f"{float(line['percent_nav']) / 2:.5f}",
                        "assetliab_value": f"{float(line['assetliab_value']) / 2:.2f}"}
                other = dict(line, **half)
                other["issue_code"], other["isin_code"], other["issuer"] = SPLIT_LINES[1]
                line.update(half)
                rows.insert(rows.index(line) + 1, other)

    def write_nav_profile(self, plan):
        """A demo feeder's NAV follows its master's path (one per master and hedging), less what it charges."""
        profile = super().write_nav_profile(plan)
        feeder = getattr(self, "_feeder_paths", {}).get(plan.proj_id)
        if profile is not None and feeder is not None:
            profile["seed"] = seed_of(self.seed, "nav-master", feeder.path)
            profile["mu"], profile["sigma"] = (7.0, 9.0) if "hedged" in feeder.path else (8.0, 15.0)
            for n, cls in enumerate(profile["classes"]):
                cls["drag"] = round(feeder.drag + 0.2 * n, 4)
        return profile
