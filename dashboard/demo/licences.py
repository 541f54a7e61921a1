"""The demo licence side: licensees, people, approvals, duties, enforcement cases and investor alerts."""

from __future__ import annotations

import random
from datetime import date, timedelta

from dashboard.demo.context import BuildContext
from dashboard.demo.pools import (
    ALERT_ACTS,
    ALERT_ENTITIES,
    APPLY_LICENSED,
    BE_OFFSET,
    BUSINESS_ACTIONS,
    COMPANY_LICENCES,
    DUTY_CODES,
    ENFORCEMENT_FACTS,
    FIRST_NAMES,
    FORMER_PLACES,
    LAW_SECTIONS,
    LICENCE_CODES,
    LICENSEE_TYPES,
    PLACES_TH,
    SURNAMES,
)
from dashboard.demo.values import blank, update_stamp


class LicenceBuilder(BuildContext):
    """The licence side: companies, people, approvals, duties, enforcement and investor alerts."""

    # ---- legacy records ---------------------------------------------------------------------------

    def build_licence_side(self) -> None:
        rng = self.sub_rng("licence")
        today = self.today
        out = self.out
        licensees = [
            {"last_upd_date": update_stamp(rng, today - timedelta(days=rng.randint(5, 700))), "unique_id": a["unique_id"],
             "name_th": a["name_th"], "name_en": a["name_en"]}
            for a in out["amcs"]
        ]
        combos = [(place, kind) for place in PLACES_TH for kind in LICENSEE_TYPES]
        for n, ((en, th), (tmpl_th, tmpl_en)) in enumerate(rng.sample(combos, 40 - len(licensees))):
            licensees.append({
                "last_upd_date": update_stamp(rng, today - timedelta(days=rng.randint(5, 900))),
                "unique_id": f"C{201 + n:010d}", "name_th": tmpl_th.format(p=th), "name_en": tmpl_en.format(p=en),
            })
        out["licensees"] = licensees
        for n, (en, th) in enumerate(FORMER_PLACES):
            tmpl_th, tmpl_en = LICENSEE_TYPES[n % 4]
            out["former_licensees"].append({
                "last_upd_date": update_stamp(rng, date(rng.randint(2012, 2023), rng.randint(1, 12), rng.randint(1, 28))),
                "unique_id": f"C{901 + n:010d}", "name_th": tmpl_th.format(p=th), "name_en": tmpl_en.format(p=en),
            })
        people = rng.sample([(f, s) for f in FIRST_NAMES for s in SURNAMES], 60)
        for n, ((title_th, title_en, first_th, first_en), (sur_th, sur_en)) in enumerate(people):
            pid = f"P{10001 + n:010d}"
            company = rng.choice(licensees[:9] if n % 3 == 0 else licensees)["unique_id"]
            out["persons"].append({
                "unique_id": pid, "name_th": f"{title_th}{first_th} {sur_th}", "name_en": f"{title_en} {first_en} {sur_en}",
                "company_unique_id": company, "case_ids": [],
            })
            out["approvals"][pid] = self.approval_records(rng)
            duties = self.duty_records(rng, pid, company, licensees, n)
            if duties:
                out["duties"][pid] = duties
        without_duties = [p["unique_id"] for p in out["persons"] if p["unique_id"] not in out["duties"]]
        out["empty_200"].add((without_duties[0], "E18"))
        self.enforcement_cases(rng)
        self.alert_cases(rng)

    def approval_records(self, rng: random.Random) -> list[dict]:
        today = self.today
        records = []
        for code, numbered, lifelong, privilege in rng.sample(LICENCE_CODES, rng.randint(1, 4)):
            effective = today - timedelta(days=rng.randint(100, 6000))
            if lifelong:
                expire = ""
            else:
                expire = (effective + timedelta(days=rng.choice((730, 1095, 1825)))).isoformat()
            records.append({
                "last_upd_date": update_stamp(rng, effective + timedelta(days=rng.randint(0, 30))),
                "regis_sale_no": f"{rng.randint(1, 99999):05d}" if numbered else blank(rng),
                "lic_code": code,
                "effective_date": effective.isoformat(),
                "expire_date": expire,
                "privilege_type": privilege if privilege and rng.random() < 0.7 else "",
            })
        return records

    def duty_records(self, rng: random.Random, pid: str, company: str, licensees: list[dict], n: int) -> list[dict]:
        count = 0 if n % 7 == 3 else rng.randint(0, 3)
        companies = [company] + [c["unique_id"] for c in rng.sample(licensees, 2)]
        return [
            {
                "last_upd_date": update_stamp(rng, self.today - timedelta(days=rng.randint(1, 900))),
                "company_unique_id": companies[k],
                "person_unique_id": pid,
                "lic_action_code": rng.choice(DUTY_CODES),
                "action_start_date": (self.today - timedelta(days=rng.randint(30, 5000))).isoformat(),
                "action_end_date": "",
            }
            for k in range(count)
        ]

    def enforcement_cases(self, rng: random.Random) -> None:
        out = self.out
        types = (1, 2, 2, 3, 4, 4, 5, 1, 2, 3, 4, 5)
        subjects = [p["unique_id"] for p in rng.sample(out["persons"], 10)] + [out["licensees"][10]["unique_id"], out["licensees"][3]["unique_id"]]
        tickers = [s[1] for s in self.securities["th_equity"]]
        unpaid_done = False
        for n, (action, subject) in enumerate(zip(types, subjects)):
            day = self.today - timedelta(days=rng.randint(60, 2500))
            case_id = f"EN-{day.year + BE_OFFSET}-{n + 1:03d}"
            unpaid = action == 2 and not unpaid_done
            unpaid_done = unpaid_done or unpaid
            details, remark = self.enforcement_text(rng, action, day, unpaid)
            out["enforcement"][(subject, case_id)] = {
                "last_upd_date": update_stamp(rng, day + timedelta(days=rng.randint(1, 20))),
                "enforcement_relevant_section_law": rng.choice(LAW_SECTIONS),
                "enforcement_summarized_facts": rng.choice(ENFORCEMENT_FACTS).format(t=rng.choice(tickers)),
                "enforcement_date": day.isoformat(),
                "enforcement_details": details,
                "enforcement_remark": remark,
            }
            out["enforcement_types"][(subject, case_id)] = action
            person = next((p for p in out["persons"] if p["unique_id"] == subject), None)
            if person is not None:
                person["case_ids"].append(case_id)

    def enforcement_text(self, rng: random.Random, action: int, day: date, unpaid: bool) -> tuple[str, str]:
        """Details and remark as the specification describes each action type."""
        order = f"{rng.randint(1, 60)}/{day.year + BE_OFFSET}"
        fine = rng.choice((250_000, 500_000, 1_000_000, 1_250_000, 2_000_000, 3_500_000))
        if action == 1:
            return ("สำนักงานกล่าวโทษต่อพนักงานสอบสวน กองบังคับการปราบปรามการกระทำความผิดเกี่ยวกับเศรษฐกิจ "
                    "(complaint filed with the inquiry officer of the economic crime division)",
                    rng.choice(("อยู่ระหว่างการดำเนินการของพนักงานสอบสวน (pending with the inquiry officer)", "-")))
        if action == 2:
            details = f"คำสั่งเปรียบเทียบปรับที่ {order} ปรับเป็นเงิน {fine:,} บาท (compounding order no. {order} with a fine of {fine:,} baht)"
            if unpaid:
                return details, ("ผู้กระทำความผิดไม่ชำระค่าปรับหรือชำระไม่ครบถ้วน สำนักงานจึงได้กล่าวโทษต่อพนักงานสอบสวน "
                                 "(the fine was not paid in full; a complaint was lodged with the inquiry officer)")
            return details, "ชำระค่าปรับครบถ้วนแล้ว (fine paid in full)"
        if action == 3:
            return (f"คำสั่งที่ ปพ. {order} ปรับเป็นเงิน {fine:,} บาท (order no. ปพ. {order} with a fine of {fine:,} baht)",
                    rng.choice(("-", "", "ชำระค่าปรับแล้ว (fine paid)")))
        if action == 4:
            months = rng.choice((3, 6, 12, 24))
            start = day + timedelta(days=rng.randint(0, 30))
            end = start + timedelta(days=months * 30)
            details = rng.choice((
                f"พักการให้ความเห็นชอบเป็นระยะเวลา {months} เดือน (suspension of approval for {months} months)",
                "เพิกถอนการให้ความเห็นชอบ (revocation of approval)",
                "ภาคทัณฑ์ (reprimand)",
            ))
            return details, (f"มีผลตั้งแต่วันที่ {start:%d/%m/%Y} ถึงวันที่ {end:%d/%m/%Y} "
                             f"(effective from {start:%d/%m/%Y} to {end:%d/%m/%Y})")
        years = rng.randint(1, 10)
        return (f"ให้ชำระค่าปรับทางแพ่ง {fine:,} บาท และห้ามเป็นกรรมการหรือผู้บริหารของบริษัทจดทะเบียนเป็นเวลา {years} ปี "
                f"(civil penalty of {fine:,} baht and a {years}-year ban from serving as a director or executive of a listed company)",
                "ผู้กระทำความผิดยินยอมเข้าสู่มาตรการลงโทษทางแพ่ง (the offender agreed to the civil sanctions)")

    def alert_cases(self, rng: random.Random) -> None:
        for n, entity in enumerate(ALERT_ENTITIES):
            day = self.today - timedelta(days=rng.randint(10, 1500))
            case_id = f"IA-{day.year + BE_OFFSET}-{n + 1:03d}"
            act_th, act_en = rng.choice(ALERT_ACTS)
            self.out["alerts"][case_id] = {
                "last_upd_date": update_stamp(rng, day),
                "case_id": case_id,
                "seq_no": str(rng.randint(1, 3)),
                "license_th": f"{entity} (บุคคลสมมติ) {act_th}",
                "license_en": f"{entity} (fictional): {act_en}",
            }

    # ---- what only the successor layout publishes -------------------------------------------------

    def successor_licences(self) -> None:
        out = self.out
        rng = self.sub_rng("successor", "licences")
        amc_ids = {a["unique_id"] for a in out["amcs"]}
        kinds = (("Securities Public", "securities"), ("Fund Brokerage", "brokerage"), ("Investment Advisory", "advisory"),
                 ("Futures", "futures"), ("Bank", "bank"))
        others = [r["unique_id"] for r in out["licensees"] if r["unique_id"] not in amc_ids]
        unlicensed = set(rng.sample(others, min(3, len(others))))  # these answer 204
        for company in out["licensees"]:
            uid = company["unique_id"]
            if uid in unlicensed:
                continue
            kind = "amc" if uid in amc_ids else next((k for text, k in kinds if text in company["name_en"]), "brokerage")
            options = COMPANY_LICENCES[kind]
            chosen = [options[0]] + [o for o in options[1:] if rng.random() < 0.6]
            licences, acts = [], []
            for lic_code, name_th, name_en, act, apply_type in chosen:
                effective = self.today - timedelta(days=rng.randint(400, 9000))
                licences.append({
                    "last_upd_date": (effective + timedelta(days=rng.randint(0, 60))).isoformat() if rng.random() < 0.85 else None,
                    "lic_no": f"{lic_code}-{rng.randint(1, 300):04d}/{effective.year + BE_OFFSET}" if apply_type == APPLY_LICENSED else "",
                    "lic_code": lic_code, "lic_name_th": name_th, "lic_name_en": name_en,
                    "acc_type": act, "apply_type": apply_type,
                    "effective_date": effective.isoformat(),
                    "expire_date": rng.choice(("", "", " ", (effective + timedelta(days=3650 * 3)).isoformat())),
                })
                for suffix, act_th, act_en in rng.sample(BUSINESS_ACTIONS, rng.randint(1, 2)):
                    start = effective + timedelta(days=rng.randint(0, 400))
                    hold = rng.random() < 0.08
                    acts.append({
                        "last_upd_date": (start + timedelta(days=rng.randint(0, 30))).isoformat(),
                        "lic_code": lic_code, "lic_name_th": name_th, "lic_name_en": name_en,
                        "lic_action_code": f"{lic_code}{suffix}", "lic_action_name_th": act_th, "lic_action_name_en": act_en,
                        "acc_type": act,
                        "action_start_date": start.isoformat() if rng.random() < 0.9 else f"{start:%d/%m}/{start.year + BE_OFFSET}",
                        "action_status": "HOLD" if hold else "NORMAL",
                        "action_remark": "ระงับการให้บริการชั่วคราว (temporarily suspended) [demo]" if hold else rng.choice((None, "")),
                    })
            out["company_licences"][uid] = licences
            out["business_acts"][uid] = acts
        all_acts = [a for acts in out["business_acts"].values() for a in acts]
        if all_acts and not any(a["action_status"] == "HOLD" for a in all_acts):
            all_acts[0].update(action_status="HOLD", action_remark="ระงับการให้บริการชั่วคราว (temporarily suspended) [demo]")

    def successor_alerts(self) -> None:
        rng = self.sub_rng("successor", "alerts")
        for n, (case_id, alert) in enumerate(self.out["alerts"].items()):
            entity = alert["license_en"].split(" (fictional)")[0]
            act_th = alert["license_th"].split(") ", 1)[-1]
            slug = "".join(ch for ch in entity.lower().replace("demo ", "") if ch.isalnum())
            addressed = rng.random() < 0.6
            self.out["alert_details"][case_id] = {
                "last_upd_date": alert["last_upd_date"],
                "case_id": case_id,
                "disclosure_date": alert["last_upd_date"][:10],
                "name_th": f"{entity} (ชื่อสมมติ)",
                "name_en": entity,
                "address_th": f"เลขที่ {rng.randint(1, 999)} ถนนสมมติ เขตเดโม กรุงเทพมหานคร (ที่อยู่สมมติ)" if addressed else rng.choice(("", None)),
                "address_en": f"{rng.randint(1, 999)} Demo Road, Bangkok (fictional address)" if addressed else rng.choice(("", None)),
                "persuade_desc": act_th,
                "website": f"https://{slug}.demo.invalid" if rng.random() < 0.7 else "",
                "facebook": f"{entity} Official (fictional page)" if rng.random() < 0.6 else None,
                "line": f"@{slug[:12]}" if rng.random() < 0.5 else "",
                "remark": rng.choice(("", None, "ข้อมูลสมมติเพื่อการสาธิต (demo data)")),
            }
