"""The generator's part for NAV history: which demo funds get which NAV quirks, and their profiles."""

from __future__ import annotations

from datetime import date

from dashboard.demo.nav import nav_profile, published_returns
from dashboard.demo.pools import REFERENCE_PERIODS, RETURN_PROFILES

# Among the active funds without classes (counted in plan order), every WEEKLY_EVERY-th publishes its
# NAV weekly and the one after it monthly; among the active funds with an accumulation class ("-A"),
# every RENAMED_EVERY-th renamed that class mid-history. The small demo has one of each.
WEEKLY_EVERY = 40
RENAMED_EVERY = 30


class NavBuilder:
    """Writes `nav_profiles` (dashboard/demo/nav.py) for the active funds, on streams of their own."""

    def write_nav_profile(self, plan) -> dict | None:
        if plan.status != "RG":
            return None
        counts = self.__dict__.setdefault("_nav_counts", {"single": 0, "accumulation": 0})
        frequency, renamed = "daily", False
        if not plan.class_suffixes:
            n = counts["single"]
            counts["single"] += 1
            frequency = {0: "weekly", 1: "monthly"}.get(n % WEEKLY_EVERY, "daily")
        elif "A" in plan.class_suffixes:
            renamed = counts["accumulation"] % RENAMED_EVERY == 0
            counts["accumulation"] += 1
        profile = nav_profile(
            seed=self.seed, proj_id=plan.proj_id, unique_id=self.out["amcs"][plan.amc_index]["unique_id"],
            today=self.today, regis=plan.regis, theme=plan.kind.theme, kind_code=plan.kind.code,
            class_names=plan.class_names, suffixes=tuple(plan.class_suffixes), frequency=frequency, renamed=renamed,
            mu_sigma=RETURN_PROFILES[plan.kind.theme])
        if profile is not None:
            self.out["nav_profiles"][plan.proj_id] = profile
        return profile

    def nav_returns(self, plan, as_of: date) -> dict[str, dict[str, float | None]] | None:
        """class label -> period -> the fund return the factsheet publishes, from the fund's NAV series."""
        profile = self.out["nav_profiles"].get(plan.proj_id)
        if profile is None:
            return None
        figures = published_returns(profile, self.today, as_of, REFERENCE_PERIODS)
        if not plan.class_names:  # the single series answers to the fund's non-class label
            return {plan.perf_class_label: next(iter(figures.values()))}
        return figures
