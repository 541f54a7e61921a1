"""LicenceCheck: licensed companies, former licensees, a person's approvals and duties, cases."""

from __future__ import annotations

import logging
import re

import pandas as pd
import param

from dashboard.api.endpoints import validate_path_param, validate_search_name
from dashboard.config import LAYOUT_SUCCESSOR
from dashboard.errors import BadInputError, SecApiError
from dashboard.models.source import ServiceModel, outcome
from dashboard.records import records_frame
from dashboard.records.licence_labels import (
    ENFORCEMENT_DATE_MEANING,
    ENFORCEMENT_DETAILS_MEANING,
    ENFORCEMENT_REMARK_MEANING,
    ENFORCEMENT_TYPE,
    Label,
    enforcement_type_key,
)

log = logging.getLogger("dashboard.models")

# The specification's rule for an unpaid compounding fine: the remark says so (Thai or English).
UNPAID_FINE = re.compile(r"ไม่ชำระ|ชำระไม่ครบ|not paid in full|unpaid|partly paid", re.I)


def fine_unpaid(record: dict | None) -> bool:
    """Whether an enforcement action (E19) says its compounding fine was not paid in full (a complaint follows)."""
    remark = (record or {}).get("enforcement_remark")
    return isinstance(remark, str) and UNPAID_FINE.search(remark) is not None


# The kind of action a case list names, as each field of the case numbers it: the specification numbers
# the date's meanings with 3 = administrative action, 4 = administrative fine, and the details' and the
# remark's the other way round (ENFORCEMENT_*_MEANING).
KIND_NUMBERS: dict[str, tuple[int, int]] = {  # kind -> (date's number, details' and remark's number)
    "complaint": (1, 1), "compounding": (2, 2), "administrative_action": (3, 4),
    "administrative_fine": (4, 3), "civil_action": (5, 5),
}


def enforcement_meanings(kind: str | None) -> dict[str, Label] | None:
    """What the date, the details and the remark of a case of this kind are; None for an unknown kind."""
    if kind not in KIND_NUMBERS:
        return None
    date_n, details_n = KIND_NUMBERS[kind]
    return {"date": ENFORCEMENT_DATE_MEANING[date_n], "details": ENFORCEMENT_DETAILS_MEANING[details_n],
            "remark": ENFORCEMENT_REMARK_MEANING[details_n]}


def kind_label(kind: str | None) -> str | None:
    """"criminal complaint (กล่าวโทษ)" for a known kind of action; None otherwise."""
    if kind not in ENFORCEMENT_TYPE:
        return None
    thai, english = ENFORCEMENT_TYPE[kind]
    return f"{english} ({thai})"


def case_kind(cases: pd.DataFrame | None, case_id: str) -> str | None:
    """The kind of action a case list (S5 rows) gives for `case_id`; None when it does not list it or name a kind."""
    if cases is None or cases.empty or "case_id" not in cases:
        return None
    kinds = {enforcement_type_key(t) for t in cases.loc[cases["case_id"] == case_id, "enforcement_type"]} - {None}
    return kinds.pop() if len(kinds) == 1 else None


def _day(value) -> pd.Timestamp | None:
    found = pd.to_datetime(value, errors="coerce")
    return None if pd.isna(found) else pd.Timestamp(found).normalize()


def _text_key(value) -> str | None:
    return " ".join(value.split()).casefold() if isinstance(value, str) and value.strip() else None


def _same_role(approval: pd.Series, duty: pd.Series) -> bool:
    """An approval covers a duty of the same code (E17 lic_code = E18 lic_action_code), or of the same English name."""
    code_a, code_d = _text_key(approval.get("lic_code")), _text_key(duty.get("lic_action_code"))
    if code_a and code_a == code_d:
        return True
    name_a, name_d = _text_key(approval.get("lic_name_en")), _text_key(duty.get("lic_action_name_en"))
    return bool(name_a and name_a == name_d)


DUTY_FLAG_COLUMNS = ("company_unique_id", "lic_action_code", "action_start_date", "approval_code", "approval_expired", "reason")


def duties_past_approval(approvals: pd.DataFrame | None, duties: pd.DataFrame | None, today) -> pd.DataFrame:
    """The duties a person still holds after every approval for that role expired (a compliance warning).

    A duty is matched to the approvals of the same role (the approval's `lic_code` is the duty's
    `lic_action_code`, or their English names agree); it is flagged when it is current on `today` (no end
    date, or one not yet passed), at least one approval matches, and every matching approval has a readable
    expiry date before `today` (an approval without an expiry date lasts while the person serves). A duty
    no approval matches (a director, say) is not flagged: the register does not say it needs one.
    Returns the flagged duties' rows with `approval_code`, `approval_expired` (the latest expiry) and a
    `reason` in words; an empty frame with those columns when nothing is flagged."""
    day = _day(today)
    if day is None:
        raise ValueError(f"today must be a date, not {today!r}")
    empty = pd.DataFrame(columns=list(DUTY_FLAG_COLUMNS))
    if approvals is None or duties is None or approvals.empty or duties.empty:
        return empty
    rows = []
    for _, duty in duties.iterrows():
        end = _day(duty.get("action_end_date"))
        if end is not None and end < day:
            continue
        matching = [a for _, a in approvals.iterrows() if _same_role(a, duty)]
        if not matching:
            continue
        expiries = [_day(a.get("expire_date")) for a in matching]
        if any(e is None or e >= day for e in expiries):
            continue
        latest = max(expiries)
        approval = matching[expiries.index(latest)]
        role = duty.get("lic_action_name_en") if _text_key(duty.get("lic_action_name_en")) else duty.get("lic_action_code")
        start = _day(duty.get("action_start_date"))
        since = f" since {start:%Y-%m-%d}" if start is not None else ""
        reason = f"still on duty as {role}{since}, but the approval for it expired on {latest:%Y-%m-%d}"
        rows.append({**duty.to_dict(), "approval_code": approval.get("lic_code"),
                     "approval_expired": latest.strftime("%Y-%m-%d"), "reason": reason})
    return pd.DataFrame(rows) if rows else empty


def amc_names(client) -> dict[str, str]:
    """English (else Thai) names of the asset management companies the current service lists (S7), by id;
    empty on the legacy layout or when the list cannot be read (names then fall back to the ids)."""
    try:
        if client.layout() != LAYOUT_SUCCESSOR:
            return {}
        rows = client.fetch("S7") or []
    except SecApiError as exc:
        log.info("the list of asset management companies could not be read (%s); companies are shown by id", exc)
        return {}
    names = {}
    for row in rows:
        uid = row.get("unique_id") if isinstance(row, dict) else None
        name = next((row.get(k).strip() for k in ("comp_name_en", "comp_name_th")
                     if isinstance(row.get(k), str) and row.get(k).strip()), None)
        if isinstance(uid, str) and name:
            names[uid] = name
    return names


def _entity_names(frame: pd.DataFrame | None) -> dict[str, str]:
    """English (else Thai) names by identifier of a frame of licensed entities (E15, E16)."""
    names: dict[str, str] = {}
    if frame is None or frame.empty:
        return names
    for uid, en, th in zip(frame["unique_id"], frame["name_en"], frame["name_th"]):
        name = en if isinstance(en, str) and en.strip() else th
        if isinstance(uid, str) and isinstance(name, str) and name.strip():
            names[uid] = name.strip()
    return names


# Identifiers of the licence register as the service writes them (C0000000021, P0000010008, EN-2565-001).
REGISTER_ID = re.compile(r"[A-Z0-9][A-Z0-9_-]{0,63}")


def is_register_id(text: str) -> bool:
    """Whether `text` can be a licence-register identifier (upper-cased): letters, digits, `-` or `_`, with at
    least one digit. A name ("somchai") cannot: the one rule the command line, links and the tab read."""
    value = str(text or "").strip().upper()
    return bool(REGISTER_ID.fullmatch(value)) and any(c.isdigit() for c in value)


class LicenceCheck(ServiceModel):
    """The licence register (E15 to E20) for a compliance check of a company or a person."""

    company_query = param.String(default="", doc="Part of a company name to search licensed entities for (E15).")
    companies = param.DataFrame(default=None, allow_None=True, doc="Licensed entities found by name (E15).")
    former = param.DataFrame(default=None, allow_None=True, doc=(
        "Entities that once held a licence or registration and hold none now: the service's company list (E16) less "
        "the fund management companies it lists as current (S7, current service)."))
    current_licensees = param.List(default=[], item_type=str, doc=(
        "Ids of the companies left out of the former licensees because they hold a licence now."))
    person_id = param.String(default="", doc="Person identifier whose approvals and duties are shown.")
    approvals = param.DataFrame(default=None, allow_None=True, doc="The person's approvals (E17) with active / expired / no expiry state.")
    duties = param.DataFrame(default=None, allow_None=True, doc="The person's current duty positions (E18).")
    enforcement_id = param.String(default="", doc="Person or entity identifier of the enforcement case.")
    case_id = param.String(default="", doc="Enforcement case reference (E19).")
    enforcement = param.Dict(default=None, allow_None=True, doc="The enforcement action (E19), or None when there is none.")
    enforcement_kind = param.String(default=None, allow_None=True, doc=(
        "The kind of action of the case looked up (complaint, compounding, administrative_fine, administrative_action, "
        "civil_action) as the person's or company's case list names it; None when no list names it (the case itself never does)."))
    alert_case_id = param.String(default="", doc="Investor-alert case reference (E20).")
    alert = param.Dict(default=None, allow_None=True, doc="The investor-alert case (E20), or None when there is none.")
    message = param.String(default="", doc="What the last lookup found when it found nothing, for an empty-state message.")
    # Published only by the current service (the successor layout).
    person_query = param.String(default="", doc="Part of a person's name, or a registration number, to search approved persons for.")
    people = param.DataFrame(default=None, allow_None=True, doc="Approved persons found by name or registration number.")
    company_id = param.String(default="", doc="Company identifier whose licences, personnel and business activities are shown.")
    company_licences = param.DataFrame(default=None, allow_None=True, doc="The company's licences and registrations.")
    personnel = param.DataFrame(default=None, allow_None=True, doc="People currently on duty at the company.")
    business = param.DataFrame(default=None, allow_None=True, doc="The company's current business activities.")
    cases_id = param.String(default="", doc="Person or company identifier whose enforcement cases are listed.")
    cases = param.DataFrame(default=None, allow_None=True, doc="Enforcement cases of a person or company (type and case).")
    alert_cases = param.DataFrame(default=None, allow_None=True, doc="Every investor-alert case the service lists.")
    person_name = param.String(default=None, allow_None=True, doc=(
        "The person's name (English, else Thai), as the person search lists it for a registration number of "
        "their approvals (current service); None until looked up, or when no approval carries a number the "
        "search lists them under."))
    records = param.Dict(default={}, doc="The normalised, JSON-ready records of the last lookups, by part.")
    register_names = param.Dict(default=None, allow_None=True, doc=(
        "English (else Thai) names, by identifier, of every entity in the service's company list (E16): read once, "
        "with the first person whose duties name companies; None until then or while the list cannot be read."))

    FRAMES = (("companies", "licensee"), ("former", "licensee"), ("approvals", "approval"), ("duties", "duty"),
              ("people", "person"), ("company_licences", "company_licence"), ("personnel", "duty"),
              ("business", "business_activity"), ("cases", "enforcement_case"), ("alert_cases", "alert_case"))

    def __init__(self, **params):
        super().__init__(**params)
        for name, kind in self.FRAMES:
            if getattr(self, name) is None:
                setattr(self, name, records_frame(kind, []))

    # Each lookup is a coroutine that returns a parameter update, run on the client's loop; the
    # public methods (one async method each) apply it here.

    async def _list(self, ep_id: str, part: str, kind: str, nothing: str, asked: dict | None = None, **params) -> dict:
        """One list lookup: its frame and records under `part`, what was asked, and `nothing` when it found none."""
        rows = await self.api.async_client.fetch(ep_id, **params) or []
        return {**(asked or {}), part: records_frame(kind, rows), "records": {**self.records, part: rows},
                "message": "" if rows else nothing}

    async def _search(self, name: str) -> dict:
        return await self._list("E15", "companies", "licensee", f"no licensed company matches {name!r}",
                                {"company_query": name}, name=name)

    async def _former(self) -> dict:
        """The service's company list (E16) less the companies that hold a licence now. The list is of every
        entity that *ever* held a licence or registration (the current service's own words), so it names
        today's fund management companies too; the current service lists those (S7), and they are left out."""
        rows = await self.api.async_client.fetch("E16") or []
        current = await self._current_licensees()
        former = [r for r in rows if not (isinstance(r, dict) and r.get("unique_id") in current)]
        return {"former": records_frame("licensee", former), "current_licensees": sorted(current),
                "records": {**self.records, "former": former},
                "message": "" if former else "the service lists no former licensees"}

    async def _current_licensees(self) -> set[str]:
        """Ids of the companies that hold a licence now as the service lists them: the fund management companies
        of the current service (S7). The older service lists none: nothing is left out there."""
        client = self.api.async_client
        if await client.layout() != LAYOUT_SUCCESSOR:
            return set()
        try:
            rows = await client.fetch("S7") or []
        except SecApiError as exc:
            log.info("the list of fund management companies could not be read (%s); the former licensees are the "
                     "service's whole company list", exc)
            return set()
        return {r["unique_id"] for r in rows if isinstance(r, dict) and isinstance(r.get("unique_id"), str)}

    async def _person(self, unique_id: str) -> dict:
        client = self.api.async_client
        results = await client.fetch_many([("E17", {"unique_id": unique_id}), ("E18", {"unique_id": unique_id})], return_exceptions=False)
        (approvals, _, stale_a), (duties, _, stale_d) = (outcome(r) for r in results)
        approvals = approvals or []
        empty = not approvals and not duties
        update = {"person_id": unique_id, "approvals": records_frame("approval", approvals),
                  "duties": records_frame("duty", duties or []), "stale": stale_a or stale_d,
                  "records": {**self.records, "approvals": approvals, "duties": duties or []},
                  "message": f"no approvals or duties are recorded for person {unique_id}" if empty else ""}
        if duties and self.register_names is None:  # duties name companies by id: the company list names them
            update["register_names"] = await self._register_names()
        return update

    async def _register_names(self) -> dict[str, str] | None:
        """Names from the service's company list (E16, one call, cached like every answer); None when it cannot be
        read: the duties then show their companies' identifiers, and the next person's lookup asks again."""
        try:
            rows = await self.api.async_client.fetch("E16") or []
        except SecApiError as exc:
            log.info("the company list could not be read (%s); duties show their companies' identifiers", exc)
            return None
        return _entity_names(records_frame("licensee", rows))

    async def _enforcement(self, unique_id: str, case_id: str) -> dict:
        record = await self.api.async_client.fetch("E19", unique_id=unique_id, case_id=case_id)
        kind = await self._case_kind(unique_id, case_id) if record else None
        return {"enforcement_id": unique_id, "case_id": case_id, "enforcement": record, "enforcement_kind": kind,
                "message": "" if record else f"no enforcement action {case_id} is recorded for {unique_id}"}

    async def _case_kind(self, unique_id: str, case_id: str) -> str | None:
        """The case's kind of action from the case list: the one listed already, else (on the current service,
        the only one with a list) the list asked for; a list that fails leaves the kind unknown."""
        if self.cases_id == unique_id and self.cases is not None and not self.cases.empty:
            return case_kind(self.cases, case_id)
        client = self.api.async_client
        if await client.layout() != LAYOUT_SUCCESSOR:
            return None
        try:
            rows = await client.fetch("S5", unique_id=unique_id) or []
        except SecApiError as exc:
            log.info("the case list of %s could not be read (%s); the kind of case %s stays unknown", unique_id, exc, case_id)
            return None
        return case_kind(records_frame("enforcement_case", rows), case_id)

    async def _alert(self, case_id: str) -> dict:
        record = await self.api.async_client.fetch("E20", case_id=case_id)
        return {"alert_case_id": case_id, "alert": record, "message": "" if record else f"no investor alert {case_id}"}

    async def _people(self, name: str) -> dict:
        return await self._list("S1", "people", "person", f"no approved person matches {name!r}", {"person_query": name}, name=name)

    async def _company(self, unique_id: str) -> dict:
        calls = [(e, {"unique_id": unique_id}) for e in ("S2", "S3", "S4")]
        results = await self.api.async_client.fetch_many(calls, return_exceptions=False)
        (licences, _, s1), (personnel, _, s2), (business, _, s3) = (outcome(r) for r in results)
        empty = not (licences or personnel or business)
        return {"company_id": unique_id, "company_licences": records_frame("company_licence", licences or []),
                "personnel": records_frame("duty", personnel or []),
                "business": records_frame("business_activity", business or []), "stale": s1 or s2 or s3,
                "records": {**self.records, "licences": licences or [], "personnel": personnel or [], "business": business or []},
                "message": f"no licences, personnel or business activities are recorded for {unique_id}" if empty else ""}

    async def _cases(self, unique_id: str) -> dict:
        return await self._list("S5", "cases", "enforcement_case", f"no enforcement cases are recorded for {unique_id}",
                                {"cases_id": unique_id}, unique_id=unique_id)

    async def _alert_cases(self) -> dict:
        return await self._list("S6", "alert_cases", "alert_case", "the service lists no investor-alert cases")

    def company_names(self) -> dict[str, str]:
        """English (else Thai) names of the companies the company list and any lookup so far have listed, by identifier."""
        names = dict(self.register_names or {})
        for frame in (self.former, self.companies):
            names.update(_entity_names(frame))
        return names

    def with_company_names(self, frame: pd.DataFrame, id_column: str = "company_unique_id") -> pd.DataFrame:
        """The frame with a `company` column: the company's name and identifier, or the identifier alone."""
        names = self.company_names()
        ids = frame[id_column] if id_column in frame else pd.Series([], dtype=object)
        company = [f"{names[u]} ({u})" if isinstance(u, str) and u in names else u for u in ids]
        return frame.assign(company=pd.Series(company, index=frame.index, dtype=object))

    async def search_people(self, name: str | None = None) -> pd.DataFrame:
        """Approved persons whose name or registration number matches (current service)."""
        await self._apply(self._people(validate_search_name(self.person_query if name is None else name)))
        return self.people

    async def load_company(self, unique_id: str | None = None) -> "LicenceCheck":
        """A company's licences, personnel and business activities (current service)."""
        await self._apply(self._company(validate_path_param("unique_id", self.company_id if unique_id is None else unique_id)))
        return self

    async def load_cases(self, unique_id: str | None = None) -> pd.DataFrame:
        """Enforcement cases of a person or company (current service)."""
        await self._apply(self._cases(validate_path_param("unique_id", self.cases_id if unique_id is None else unique_id)))
        return self.cases

    async def load_alert_cases(self) -> pd.DataFrame:
        """Every investor-alert case (current service)."""
        await self._apply(self._alert_cases())
        return self.alert_cases

    async def search_companies(self, name: str | None = None) -> pd.DataFrame:
        """Licensed entities whose name matches (E15)."""
        await self._apply(self._search(validate_search_name(self.company_query if name is None else name)))
        return self.companies

    async def load_former(self) -> pd.DataFrame:
        """Entities that once held a licence or registration (E16)."""
        await self._apply(self._former())
        return self.former

    async def load_register_names(self) -> dict[str, str]:
        """Names of every entity in the service's company list (E16), by identifier: read once (a person's lookup
        reads them with duties); empty while the list cannot be read."""
        if self.register_names is None:
            await self._apply(self._register_update())
        return dict(self.register_names or {})

    async def _register_update(self) -> dict:
        return {"register_names": await self._register_names()}

    async def load_person(self, unique_id: str | None = None) -> "LicenceCheck":
        """A person's approvals and current duties (E17, E18); a name typed where the id belongs is refused
        (BadInputError), nothing asked and nothing changed."""
        uid = validate_path_param("unique_id", self.person_id if unique_id is None else unique_id)
        if not is_register_id(uid):
            raise BadInputError(f"{uid.strip()!r} is not a person id: ids are upper-case letters and digits such as "
                                "P0000010008. To find a person by name, use Find a person.")
        await self._apply(self._person(uid.strip().upper()))
        return self

    async def load_person_name(self, unique_id: str | None = None) -> str | None:
        """The person's name, after `load_person`. The register's approvals and duties carry no name; the person
        search (S1, current service) finds a person by a registration number their approvals carry, and its
        row of this identifier names them. Nothing to search by (or a search that fails): None, and the
        person is shown by identifier."""
        uid = validate_path_param("unique_id", self.person_id if unique_id is None else unique_id)
        await self._apply(self._person_name(uid))
        return self.person_name

    async def _person_name(self, unique_id: str) -> dict:
        numbers = [] if self.approvals is None or "regis_sale_no" not in self.approvals else list(dict.fromkeys(
            n.strip() for n in self.approvals["regis_sale_no"] if isinstance(n, str) and n.strip().isdigit()))
        for number in numbers:
            try:
                rows = await self.api.async_client.fetch("S1", name=number) or []
            except SecApiError as exc:
                log.info("person %s: the person search for registration number %s failed (%s); shown by identifier",
                         unique_id, number, exc)
                return {"person_name": None}
            people = records_frame("person", rows)
            for uid, en, th in zip(people["unique_id"], people["name_en"], people["name_th"]):
                name = en if isinstance(en, str) and en.strip() else th
                if uid == unique_id and isinstance(name, str) and name.strip():
                    return {"person_name": name.strip()}
        return {"person_name": None}

    def _case_args(self, unique_id, case_id) -> tuple[str, str]:
        return (validate_path_param("unique_id", self.enforcement_id if unique_id is None else unique_id),
                validate_path_param("case_id", self.case_id if case_id is None else case_id))

    async def load_enforcement(self, unique_id: str | None = None, case_id: str | None = None) -> dict | None:
        """An enforcement action (E19)."""
        await self._apply(self._enforcement(*self._case_args(unique_id, case_id)))
        return self.enforcement

    async def load_alert(self, case_id: str | None = None) -> dict | None:
        """An investor-alert case (E20)."""
        await self._apply(self._alert(validate_path_param("case_id", self.alert_case_id if case_id is None else case_id)))
        return self.alert
