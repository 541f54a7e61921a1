"""The service's enumerations with Thai and English labels, and the lookups that read their codes.

The licence register's own tables (enforcement cases, action status) are in `licence_labels`; `label`
reads them too."""

from __future__ import annotations

import re
from collections.abc import Callable

from dashboard.records.licence_labels import (ACTION_STATUS, ENFORCEMENT_DATE_MEANING, ENFORCEMENT_DETAILS_MEANING,
                                              ENFORCEMENT_REMARK_MEANING, ENFORCEMENT_TYPE, Label, enforcement_type_key)
from dashboard.records.values import is_placeholder

FUND_STATUS: dict[str, Label] = {
    "SE": ("ได้รับอนุมัติ อยู่ระหว่างยื่นจดทะเบียน", "approved, in filing"),
    "EX": ("สิ้นสุดระยะเวลาเสนอขาย", "offering period expired"),
    "RG": ("จดทะเบียนแล้ว", "registered"),
    "CA": ("ยกเลิกโครงการ", "project cancelled"),
    "LI": ("เลิกกองทุน (ชำระบัญชี)", "liquidated"),
}

# The current service writes the status as a word (successor-api.md 4.1, 4.14); each names a code above.
FUND_STATUS_SENT = {"RG": "Registered", "SE": "IPO", "EX": "Expired", "CA": "Canceled", "LI": "Liquidated"}
FUND_STATUS_WORDS: dict[str, str] = {word.upper(): code for code, word in FUND_STATUS_SENT.items()}

RISK_SPECTRUM: dict[str, Label] = {
    **{f"RS{n}": (f"ความเสี่ยงระดับ {n}", f"risk level {n}") for n in range(1, 9)},
    "RS81": ("ความเสี่ยงระดับ 8+", "risk level 8+"),
}
# The level as printed on a factsheet, and a rank that orders and plots 8+ above 8.
RISK_LEVEL: dict[str, str] = {**{f"RS{n}": str(n) for n in range(1, 9)}, "RS81": "8+"}
RISK_RANK: dict[str, int] = {**{f"RS{n}": n for n in range(1, 9)}, "RS81": 9}

# None is a code here: the specification lists null among proj_retail_type's values.
PROJ_RETAIL_TYPE: dict[str | None, Label] = {
    "R": ("กองทุนสำหรับผู้ลงทุนทั่วไป", "fund for general investors"),
    "A": ("กองทุนที่เสนอขายเฉพาะผู้ลงทุนที่ไม่ใช่รายย่อย", "fund offered only to non-retail investors"),
    "B": ("กองทุนที่เสนอขายเฉพาะผู้มีเงินลงทุนสูง", "fund offered only to high-net-worth investors"),
    "G": ("กองทุนพิเศษเพื่อนโยบายของรัฐ", "special fund serving a government policy"),
    "H": (
        "กองทุนที่เสนอขายผู้ลงทุนที่ไม่ใช่รายย่อยและผู้มีเงินลงทุนสูง",
        "fund offered to non-retail and high-net-worth investors",
    ),
    "N": ("กองทุนสำหรับผู้ลงทุนสถาบัน", "fund for institutional investors"),
    "X": (
        "กองทุนที่เสนอขายผู้ลงทุนสถาบันและผู้มีเงินลงทุนสูงพิเศษ",
        "fund offered to institutional and ultra-high-net-worth investors",
    ),
    # Added by the current service (successor-api.md 4.1, 4.14), which names them in English only.
    "F": (None, "corporate-bond liquidity support fund"),
    "V": (None, "fund for provident funds"),
    None: ("ไม่ระบุ", "not stated"),
}

INVEST_COUNTRY_FLAG: dict[str, Label] = {
    "1": ("กองทุนที่เน้นลงทุนแบบมีความเสี่ยงต่างประเทศ", "fund focused on investment with foreign risk"),
    "2": ("กองทุนที่ลงทุนในต่างประเทศบางส่วน", "partly invests abroad"),
    "3": ("กองทุนที่ลงทุนแบบไม่มีความเสี่ยงต่างประเทศ", "fund investing without foreign risk"),
    "4": (
        "กองทุนที่ลงทุนแบบมีความเสี่ยงทั้งในประเทศและต่างประเทศ",
        "fund investing with both domestic and foreign risk",
    ),
}

REDEMP_PERIOD: dict[str, Label] = {
    "1": ("ทุกวันทำการ", "every business day"),
    "2": ("มากกว่าทุกวันทำการ แต่ไม่เกิน 1 สัปดาห์", "more than every business day, up to 1 week"),
    "3": ("มากกว่า 1 สัปดาห์ แต่ไม่เกิน 2 สัปดาห์", "more than 1 week, up to 2 weeks"),
    "4": ("มากกว่า 2 สัปดาห์ แต่ไม่เกิน 1 เดือน", "more than 2 weeks, up to 1 month"),
    "5": ("มากกว่า 1 เดือน แต่ไม่เกิน 2 เดือน", "more than 1 month, up to 2 months"),
    "6": ("มากกว่า 2 เดือน แต่ไม่เกิน 3 เดือน", "more than 2 months, up to 3 months"),
    "7": ("มากกว่า 3 เดือน แต่ไม่เกิน 6 เดือน", "more than 3 months, up to 6 months"),
    "8": ("มากกว่า 6 เดือน แต่ไม่เกิน 1 ปี", "more than 6 months, up to 1 year"),
    "9": ("อื่น ๆ", "other"),
    "E": ("เมื่อสิ้นสุดอายุโครงการ", "at the end of the project term"),
    "T": ("เมื่อถึงเงื่อนไขที่กำหนด (trigger)", "when a trigger is reached"),
}

PROJ_TERM_FLAG: dict[str, Label] = {
    "Y": ("กำหนดอายุโครงการ", "term is fixed"),
    "N": ("ไม่กำหนดอายุโครงการ", "term is not fixed"),
}

# "" is a code here: the specification says an empty privilege_type means none was exercised.
PRIVILEGE_TYPE: dict[str, Label] = {
    "MD": ("ใช้สิทธิในฐานะผู้บริหาร", "exercised executive privilege"),
    "FM": ("ขึ้นทะเบียนเป็นผู้จัดการกองทุนที่มีคุณสมบัติ", "registered as qualified fund manager"),
    "": ("ไม่ได้ใช้สิทธิ", "no privilege exercised"),
}

# performance_type_desc arrives as Thai text; the dashboard keys on these kinds.
PERFORMANCE_KIND: dict[str, Label] = {
    "fund_return": ("ผลตอบแทนกองทุนรวม", "fund return"),
    "benchmark_return": ("ผลตอบแทนตัวชี้วัด", "benchmark return"),
    "fund_volatility": ("ความผันผวนของกองทุนรวม", "fund volatility"),
    "benchmark_volatility": ("ความผันผวนของตัวชี้วัด", "benchmark volatility"),
    "peer_average": ("ค่าเฉลี่ยในกลุ่มเดียวกัน", "peer group average"),
}

# Look-back periods in display order (the order is the dict's).
REFERENCE_PERIOD: dict[str, Label] = {
    "year to date": ("ตั้งแต่ต้นปี", "year to date"),
    "3 months": ("3 เดือน", "3 months"),
    "6 months": ("6 เดือน", "6 months"),
    "1 year": ("1 ปี", "1 year"),
    "3 years": ("3 ปี", "3 years"),
    "5 years": ("5 ปี", "5 years"),
    "10 years": ("10 ปี", "10 years"),
    "inception date": ("ตั้งแต่จัดตั้งกองทุน", "since inception"),
}
REFERENCE_PERIOD_ORDER: dict[str, int] = {key: n for n, key in enumerate(REFERENCE_PERIOD, start=1)}


# --- code normalisers: what the service sends -> the key of the table above ---------------------


def _code_text(code: object) -> str | None:
    """A code as stripped upper-case text; whole numbers (1, 1.0) read as their digits."""
    if isinstance(code, bool) or code is None:
        return None
    if isinstance(code, int):
        return str(code)
    if isinstance(code, float):
        return str(int(code)) if code.is_integer() else None
    if isinstance(code, str):
        return code.strip().upper()
    return None


def normalise_code(code: object) -> str | None:
    """The code as stripped upper-case text; "" stays "" (some enumerations give it a meaning)."""
    return _code_text(code)


def normalise_fund_status(code: object) -> str | None:
    """RG, SE, EX, CA, LI from a legacy code or a current-service word (Registered, IPO, ...)."""
    text = _code_text(code)
    if not text:
        return text
    return FUND_STATUS_WORDS.get(re.sub(r"\s+", "", text), text)


def normalise_risk_code(code: object) -> str | None:
    """RS1..RS8 and RS81; "RS8+", "rs 8+", "8+" and a bare level "5" are read too."""
    text = _code_text(code)
    if not text:
        return None
    text = re.sub(r"\s+", "", text)
    if text.startswith("RS"):
        level = text[2:]
    elif re.fullmatch(r"[1-8]\+?", text):
        level = text
    else:
        return text
    return "RS81" if level == "8+" else f"RS{level}"


def performance_kind(description: object) -> str | None:
    """The kind key (fund_return, benchmark_return, ...) of a performance_type_desc: its Thai name as the
    reference lists it, its English name or the key, spaces and case aside; None for any other text."""
    if not isinstance(description, str):
        return None
    compact = re.sub(r"\s+", "", description).casefold()
    if not compact:
        return None
    for key, (thai, english) in PERFORMANCE_KIND.items():
        if compact in {re.sub(r"\s+", "", thai), english.replace(" ", ""), key.replace("_", "")}:
            return key
    return None


_PERIOD_UNITS = {"month": "months", "months": "months", "m": "months", "year": "years", "years": "years", "y": "years",
                 "เดือน": "months", "ปี": "years"}
_PERIOD_ALIASES = {
    "yeartodate": "year to date", "ytd": "year to date", "ตั้งแต่ต้นปี": "year to date",
    "inceptiondate": "inception date", "sinceinception": "inception date", "inception": "inception date",
    "ตั้งแต่จัดตั้งกองทุน": "inception date", "ตั้งแต่จัดตั้ง": "inception date",
}


def reference_period_key(period: object) -> str | None:
    """The canonical look-back period ("1 year", "inception date") of a reference_period text."""
    if not isinstance(period, str):
        return None
    text = re.sub(r"\s+", " ", period).strip().casefold()
    if text in REFERENCE_PERIOD:
        return text
    alias = _PERIOD_ALIASES.get(text.replace(" ", "").replace("-", ""))
    if alias:
        return alias
    match = re.fullmatch(r"(\d+)\s*(months?|m|years?|y|เดือน|ปี)", text)
    if match is None:
        return None
    n, unit = int(match[1]), _PERIOD_UNITS[match[2]]
    if unit == "months" and n == 12:
        n, unit = 1, "years"
    key = f"{n} {unit}" if n != 1 else f"1 {unit[:-1]}"
    return key if key in REFERENCE_PERIOD else None


def _enforcement_type(code: object) -> int | None:
    text = _code_text(code)
    return int(text) if text and text.isascii() and text.isdigit() else None


# enum name -> (table, code normaliser). The names are the record fields that carry the codes.
ENUMS: dict[str, tuple[dict, Callable[[object], object]]] = {
    "fund_status": (FUND_STATUS, normalise_fund_status),
    "risk_spectrum": (RISK_SPECTRUM, normalise_risk_code),
    "proj_retail_type": (PROJ_RETAIL_TYPE, lambda c: None if is_placeholder(c) else normalise_code(c)),
    "invest_country_flage": (INVEST_COUNTRY_FLAG, normalise_code),
    "redemp_period": (REDEMP_PERIOD, normalise_code),
    "proj_term_flag": (PROJ_TERM_FLAG, normalise_code),
    "privilege_type": (PRIVILEGE_TYPE, normalise_code),
    "performance_kind": (PERFORMANCE_KIND, lambda c: c if isinstance(c, str) and c in PERFORMANCE_KIND else performance_kind(c)),
    "reference_period": (REFERENCE_PERIOD, reference_period_key),
    "enforcement_date": (ENFORCEMENT_DATE_MEANING, _enforcement_type),
    "enforcement_details": (ENFORCEMENT_DETAILS_MEANING, _enforcement_type),
    "enforcement_remark": (ENFORCEMENT_REMARK_MEANING, _enforcement_type),
}
ENUMS["invest_country_flag"] = ENUMS["invest_country_flage"]  # the field list's spelling

# Added by the current service (successor-api.md 4.14).
MANAGEMENT_STYLE: dict[str, Label] = {
    "AM": ("บริหารเชิงรุก", "active"),
    "AN": ("กองทุนรวมฟีดเดอร์ กองทุนหลักบริหารเชิงรุก", "feeder fund, master fund managed actively"),
    "PM": ("บริหารเชิงรับ (ดัชนี)", "passive (index)"),
    "PN": ("กองทุนรวมฟีดเดอร์ กองทุนหลักบริหารเชิงรับ", "feeder fund, master fund passive"),
    "IM": ("กองทุนผลตอบแทนผกผัน", "inverse"),
    "IN": ("กองทุนรวมฟีดเดอร์ กองทุนหลักผลตอบแทนผกผัน", "feeder fund, master fund inverse"),
    "LM": ("กองทุนที่มีการกู้ยืม (leveraged)", "leveraged"),
    "LN": ("กองทุนรวมฟีดเดอร์ กองทุนหลัก leveraged", "feeder fund, master fund leveraged"),
    "BH": ("ซื้อและถือ", "buy and hold"),
    "SM": ("ติดตามดัชนี และอาจสร้างผลตอบแทนสูงกว่า", "index tracking with some outperformance"),
    "OT": ("อื่น ๆ", "other"),
}
TAX_INCENTIVE: dict[str, Label] = {
    "SSF": ("กองทุนรวมเพื่อการออม (SSF)", "Super Savings Fund (SSF)"),
    "ThaiESG": ("กองทุนรวมไทยเพื่อความยั่งยืน (Thai ESG)", "Thailand ESG Fund (Thai ESG)"),
    "RMF": ("กองทุนรวมเพื่อการเลี้ยงชีพ (RMF)", "Retirement Mutual Fund (RMF)"),
}

ENUMS["management_style"] = (MANAGEMENT_STYLE, normalise_code)
ENUMS["enforcement_type"] = (ENFORCEMENT_TYPE, enforcement_type_key)
ENUMS["action_status"] = (ACTION_STATUS, normalise_code)


def label(enum_name: str, code: object, lang: str = "en") -> str | None:
    """The Thai ("th") or English ("en") label of a code; None for an unknown enumeration, code or language."""
    entry = ENUMS.get(enum_name) if isinstance(enum_name, str) else None
    if entry is None or lang not in ("th", "en"):
        return None
    table, normalise = entry
    try:
        key = normalise(code)
        pair = table.get(key)
    except TypeError:  # an unhashable code
        return None
    if pair is None:
        return None
    return pair[0] if lang == "th" else pair[1]


# Holdings asset/liability codes (assetliab_id). The current service sends the Thai text beside each
# holding (assetliab_desc); the legacy layout sends only the code, so the common codes are named here.
ASSET_TYPE: dict[str, Label] = {
    "101": ("หุ้นสามัญ", "ordinary shares"),
    "102": ("หุ้นบุริมสิทธิ", "preferred shares"),
    "103": ("ใบสำคัญแสดงสิทธิ", "warrants"),
    "104": ("หน่วยลงทุน", "fund units"),
    "201": ("พันธบัตรรัฐบาล", "government bonds"),
    "202": ("ตั๋วเงินคลังและพันธบัตรธนาคารแห่งประเทศไทย", "treasury bills and Bank of Thailand bonds"),
    "211": ("หุ้นกู้", "corporate bonds"),
    "221": ("ตราสารหนี้ต่างประเทศ", "foreign debt securities"),
    "301": ("เงินฝากธนาคาร", "bank deposits"),
    "401": ("หน่วยลงทุนของกองทุนต่างประเทศ", "units of foreign funds"),
    "501": ("สัญญาซื้อขายล่วงหน้า", "forward contracts"),
    "601": ("หุ้นกู้อนุพันธ์", "structured notes"),
    "701": ("สินทรัพย์อื่นๆ/หนี้สินอื่นๆ", "other assets and liabilities"),
    "903": ("มูลค่าทรัพย์สินสุทธิ (NAV)", "net asset value (NAV) total"),
}
ENUMS["asset_type"] = (ASSET_TYPE, normalise_code)



# Asset classes of the asset allocation (asset_name): both layouts send Thai text only, so the
# common classes are named in English here. Keys are the Thai text with spaces removed.
ASSET_CLASS: dict[str, str] = {
    "หุ้นสามัญ": "ordinary shares",
    "หุ้นบุริมสิทธิ": "preferred shares",
    "ใบสำคัญแสดงสิทธิ": "warrants",
    "หน่วยลงทุน": "fund units",
    "หน่วยลงทุนของกองทุนอสังหาริมทรัพย์": "property fund units",
    "หน่วยลงทุนของกองทุนต่างประเทศ": "units of foreign funds",
    "หน่วยลงทุนของกองทุนทองคำต่างประเทศ": "units of foreign gold funds",
    "พันธบัตรรัฐบาล": "government bonds",
    "ตั๋วเงินคลัง": "treasury bills",
    "ตั๋วเงินคลังและพันธบัตรธนาคารแห่งประเทศไทย": "treasury bills and Bank of Thailand bonds",
    "หุ้นกู้": "corporate bonds",
    "หุ้นกู้ภาคเอกชน": "corporate bonds",
    "หุ้นกู้อนุพันธ์": "structured notes",
    "ตราสารหนี้ต่างประเทศ": "foreign debt securities",
    "ตั๋วแลกเงิน": "bills of exchange",
    "เงินฝากธนาคาร": "bank deposits",
    "เงินฝากธนาคารต่างประเทศ": "foreign bank deposits",
    "เงินฝากธนาคารและอื่นๆ": "bank deposits and others",
    "สัญญาซื้อขายล่วงหน้า": "forward contracts",
    "ตราสารอนุพันธ์": "derivatives",
    "ทรัพย์สินอื่นและหนี้สินอื่น": "other assets and liabilities",
    "สินทรัพย์อื่นๆ/หนี้สินอื่นๆ": "other assets and liabilities",
}


def asset_class_english(thai: object) -> str | None:
    """The English name of a common allocation asset class sent in Thai ("เงินฝากธนาคาร และอื่นๆ" -> "bank deposits and others")."""
    if not isinstance(thai, str):
        return None
    return ASSET_CLASS.get("".join(thai.split()))


# The fund's policy type (policy_desc): both layouts send Thai text only; these are the values the
# reference lists. Keys are the Thai text with spaces removed.
POLICY_TYPE: dict[str, str] = {
    "ตราสารทุน": "equity",
    "ตราสารหนี้": "fixed income",
    "ผสม": "mixed",
    "ทรัพย์สินทางเลือก": "alternative assets",
    "อื่นๆ": "other",
    "ไม่ระบุเนื่องจากเป็นกองทุนรวมอีทีเอฟแบบleveraged/inverse": "not stated (a leveraged or inverse ETF)",
}


def policy_type_english(thai: object) -> str | None:
    """The English name of a policy type sent in Thai ("ตราสารหนี้" -> "fixed income"); None when unknown."""
    if not isinstance(thai, str):
        return None
    return POLICY_TYPE.get("".join(thai.split()))


# ---- the spellings each layout is documented to send ---------------------------------------------
# Fee lines by kind: (Thai name, English name). Both layouts send "<Thai> (<English>)" on factsheet
# fees (successor-api.md 4.8 and 4.14, sec-open-api.md's example; real-world-notes.md); the reference
# lists the English names alone too, and project fees (general-info/mutual-fund-fees) by English name.
FEE_TYPE: dict[str, tuple[str | None, str]] = {
    "front_end": ("ค่าธรรมเนียมการขายหน่วยลงทุน", "Front-end Fee"),
    "back_end": ("ค่าธรรมเนียมการรับซื้อคืนหน่วยลงทุน", "Back-end Fee"),
    "switching_in": ("ค่าธรรมเนียมการสับเปลี่ยนหน่วยลงทุนเข้า", "Switching In"),
    "switching_out": ("ค่าธรรมเนียมการสับเปลี่ยนหน่วยลงทุนออก", "Switching Out"),
    "transfer": ("ค่าธรรมเนียมการโอนหน่วยลงทุน", "Transfer Fee"),
    "total": ("ค่าธรรมเนียมและค่าใช้จ่ายรวมทั้งหมด", "Total Fee and Expense"),
    "management": ("ค่าธรรมเนียมการจัดการ", "Management Fee"),
    "trustee": ("ค่าธรรมเนียมผู้ดูแลผลประโยชน์", "Trustee Fee"),
    "registrar": ("ค่าธรรมเนียมนายทะเบียน", "Registrar Fee"),
    "distributor": (None, "Distributor Fee"),
    "investment_advisor": (None, "Investment Advisor Fee"),
    "other": (None, "Other Fee"),
}
FACTSHEET_FEE_KINDS = ("front_end", "back_end", "switching_in", "switching_out", "transfer", "total", "management")
PROJECT_FEE_KINDS = ("distributor", "investment_advisor", "management", "other", "registrar", "total", "trustee")
# The total line of a fee list, and the recurring charges that stand in for it when it is not published.
TOTAL_FEE_KIND = "total"
RECURRING_FEE_KINDS = ("management", "trustee", "registrar")


def fee_type_text(kind: str, form: str = "thai_english") -> str:
    """A fee kind's line as sent: "thai_english" ("<Thai> (<English>)"), "english" or "thai"."""
    thai, english = FEE_TYPE[kind]
    if form == "english" or thai is None:
        return english
    return thai if form == "thai" else f"{thai} ({english})"


FEE_SPELLING_FORMS = ("thai_english", "english", "thai")
TAX_INCENTIVE_TEXT: dict[str, str] = {  # fund_class_tax_incentive_type (successor-api.md 4.1); "" is none
    "SSF": "กองทุนรวมเพื่อการออม (Super Savings Fund : SSF)",
    "ThaiESG": "กองทุนรวมไทยเพื่อความยั่งยืน (Thailand ESG Fund : Thai ESG)",
}

# field -> layout -> {spelling as sent: the key of the field's table}. The demo sends these and the
# product reads them; a value in none of them is shown as sent and never counted into a figure.
SPELLINGS: dict[str, dict[str, dict[str, str]]] = {
    "fund_status": {"legacy": {code: code for code in FUND_STATUS},
                    "successor": {word: code for code, word in FUND_STATUS_SENT.items()}},
    "risk_spectrum": {"legacy": {code: code for code in RISK_SPECTRUM},
                      "successor": {**{code: code for code in RISK_SPECTRUM}, "RS8+": "RS81"}},
    "fee_type_desc": {layout: {fee_type_text(k, form): k for k in FACTSHEET_FEE_KINDS + (("trustee", "registrar") if layout == "legacy" else ())
                               for form in FEE_SPELLING_FORMS}
                      for layout in ("legacy", "successor")},
    "project_fee_type_desc": {"successor": {**{("Total Fee" if k == TOTAL_FEE_KIND else fee_type_text(k, "english")): k
                                               for k in PROJECT_FEE_KINDS},
                                            fee_type_text("management"): "management"}},
    "performance_type_desc": {layout: {thai: key for key, (thai, _en) in PERFORMANCE_KIND.items()}
                              for layout in ("legacy", "successor")},
    "policy_desc": {layout: {"ตราสารทุน": "ตราสารทุน", "ตราสารหนี้": "ตราสารหนี้", "ผสม": "ผสม",
                             "ทรัพย์สินทางเลือก": "ทรัพย์สินทางเลือก", "อื่น ๆ": "อื่นๆ",
                             "ไม่ระบุ เนื่องจากเป็นกองทุนรวมอีทีเอฟแบบ leveraged / inverse":
                                 "ไม่ระบุเนื่องจากเป็นกองทุนรวมอีทีเอฟแบบleveraged/inverse"}
                    for layout in ("legacy", "successor")},
    "fund_class_tax_incentive_type": {"successor": {text: key for key, text in TAX_INCENTIVE_TEXT.items()}},
    "redemp_period": {"legacy": {code: code for code in REDEMP_PERIOD},
                      "successor": {thai: code for code, (thai, _en) in REDEMP_PERIOD.items()}},
}


def _compact(text: object) -> str | None:
    return re.sub(r"\s+", "", text).casefold() if isinstance(text, str) else None


_FEE_LOOKUP = {_compact(spelling): kind for field in ("fee_type_desc", "project_fee_type_desc")
               for table in SPELLINGS[field].values() for spelling, kind in table.items()}


def fee_type_key(text: object) -> str | None:
    """The kind of a fee line ("total", "management", ...) when its text is one the layouts are documented
    to send (spaces and case aside); None for any other text, which is shown as sent and counted nowhere."""
    return _FEE_LOOKUP.get(_compact(text) or "")


_TAX_LOOKUP = {_compact(text): key for key, text in TAX_INCENTIVE_TEXT.items()} | {_compact(k): k for k in TAX_INCENTIVE}


def tax_incentive_key(text: object) -> str | None:
    """SSF or ThaiESG (RMF too) from a fund_class_tax_incentive_type text or its short name; None for none ("")
    and for any other text."""
    return _TAX_LOOKUP.get(_compact(text) or "")


def redemption_code(text: object) -> str | None:
    """The redemption-period code (1..9, E, T) of a legacy code or of the Thai (or English) label the
    current service sends instead; None for any other text."""
    compact = _compact(text) if isinstance(text, str) else _compact(normalise_code(text))
    if not compact:
        return None
    for code, (thai, english) in REDEMP_PERIOD.items():
        if compact in (code.casefold(), _compact(thai), _compact(english)):
            return code
    return None


ENUMS["fee_type"] = (FEE_TYPE, fee_type_key)
ENUMS["tax_incentive"] = (TAX_INCENTIVE, tax_incentive_key)
