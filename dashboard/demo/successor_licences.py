"""The successor simulator's licence endpoints (`/v1/license-check/...`) over the demo's licence register."""

from __future__ import annotations

from dashboard.demo.pools import DUTY_NAMES, ENFORCEMENT_TYPE_TH, FIRST_NAMES, LICENCE_NAMES
from dashboard.demo.successor_values import insert_after, is_blank


class LicenceRows:
    """The licence endpoints' rows of one request, from the records of `self.ds` (a `DemoDataset`)."""

    def person_search(self, params: dict, body: dict) -> list[dict]:
        name = (body.get("Name") or body.get("name") or "").strip()
        number = (body.get("regis_sale_no") or "").strip()
        needle = name.casefold()
        rows = []
        for person in self.ds.persons:
            pid = person.get("unique_id")
            approvals = self.ds.approvals.get(pid) or []
            numbers = [a["regis_sale_no"] for a in approvals if not is_blank(a.get("regis_sale_no"))]
            parts = split_person_name(person)
            texts = [person.get("name_th"), person.get("name_en"), *parts.values()]
            if (needle and any(needle in str(t or "").casefold() for t in texts)) or (number and any(number in n for n in numbers)):
                stamps = [a.get("last_upd_date") for a in approvals if a.get("last_upd_date")]
                rows.append({"last_upd_date": max(stamps) if stamps else None, "unique_id": pid,
                             "regis_sale_no": numbers[0] if numbers else "", **parts})
        return rows

    def companies(self, params: dict, body: dict) -> list[dict]:
        return [dict(r) for r in self.ds.company_register()]

    def company_search(self, params: dict, body: dict) -> list[dict]:
        needle = (body.get("Name") or body.get("name") or "").strip().casefold()
        return [dict(r) for r in self.ds.licensees
                if any(needle in str(r.get(k) or "").casefold() for k in ("name_th", "name_en"))]

    def person_licences(self, params: dict, body: dict) -> list[dict]:
        out = []
        for rec in self.ds.approvals.get(params["unique_id"]) or []:
            th, en = LICENCE_NAMES.get(rec.get("lic_code"), (None, None))
            out.append(insert_after(rec, "lic_code", lic_name_th=th, lic_name_en=en))
        return out

    def _with_duty_names(self, records: list[dict]) -> list[dict]:
        out = []
        for rec in records:
            th, en = DUTY_NAMES.get(rec.get("lic_action_code"), (None, None))
            out.append(insert_after(rec, "lic_action_code", lic_action_name_th=th, lic_action_name_en=en))
        return out

    def work_info(self, params: dict, body: dict) -> list[dict]:
        return self._with_duty_names(self.ds.duties.get(params["unique_id"]) or [])

    def personnel(self, params: dict, body: dict) -> list[dict]:
        uid = params["unique_id"]
        return self._with_duty_names([d for duties in self.ds.duties.values() for d in duties
                                      if d.get("company_unique_id") == uid])

    def company_licences(self, params: dict, body: dict) -> list[dict]:
        return [dict(r) for r in self.ds.company_licences.get(params["unique_id"]) or []]

    def business_acts(self, params: dict, body: dict) -> list[dict]:
        return [dict(r) for r in self.ds.business_acts.get(params["unique_id"]) or []]

    def enforcement_cases(self, params: dict, body: dict) -> list[dict]:
        uid = params["unique_id"]
        return [{"last_upd_date": rec.get("last_upd_date"),
                 "enforcement_type": ENFORCEMENT_TYPE_TH.get(self.ds.enforcement_types.get(key), ENFORCEMENT_TYPE_TH[1]),
                 "case_id": key[1]}
                for key, rec in self.ds.enforcement.items() if key[0] == uid]

    def enforcement(self, params: dict, body: dict) -> list[dict]:
        rec = self.ds.enforcement.get((params["unique_id"], params["case_id"]))
        return [dict(rec)] if rec else []

    def alert_details(self, params: dict, body: dict) -> list[dict]:
        if self.ds.alert_details:
            return [dict(r) for r in self.ds.alert_details.values()]
        return [{"last_upd_date": a.get("last_upd_date"), "case_id": case_id, "disclosure_date": str(a.get("last_upd_date") or "")[:10],
                 "name_th": None, "name_en": None, "address_th": None, "address_en": None, "persuade_desc": a.get("license_th"),
                 "website": None, "facebook": None, "line": None, "remark": None}
                for case_id, a in self.ds.alerts.items()]

    def alert_action(self, params: dict, body: dict) -> list[dict]:
        rec = self.ds.alerts.get(params["case_id"])
        return [dict(rec)] if rec else []


def split_person_name(person: dict) -> dict:
    """prefix/given name/surname in Thai and English from the demo person's full names."""
    name_th, name_en = str(person.get("name_th") or ""), str(person.get("name_en") or "")
    for title_th, title_en, first_th, first_en in sorted(FIRST_NAMES, key=lambda f: -len(f[0] + f[2])):
        head_th, head_en = f"{title_th}{first_th} ", f"{title_en} {first_en} "
        if name_th.startswith(head_th) and name_en.startswith(head_en):
            return {"prefix_th": title_th, "givenname_th": first_th, "surname_th": name_th[len(head_th):],
                    "prefix_en": title_en, "givenname_en": first_en, "surname_en": name_en[len(head_en):]}
    th = name_th.split(" ", 1) + [""]
    en = name_en.split(" ")
    prefix_en = en.pop(0) if en and en[0].endswith(".") else ""
    return {"prefix_th": "", "givenname_th": th[0], "surname_th": th[1], "prefix_en": prefix_en,
            "givenname_en": en[0] if en else "", "surname_en": " ".join(en[1:])}
