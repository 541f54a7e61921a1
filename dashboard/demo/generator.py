"""A deterministic, fictional data set shaped exactly like the raw payloads of the SEC Open API.

Every payload is what the real service would send: strings everywhere (numbers only where the
specification says `number`), the missing-value spellings seen in the wild ("-", null, " ", "",
"0000-00-00"), Base64 texts with stray "n" line breaks, the two spellings of the country flag, a
NAV total line among the holdings, a feeder fund whose holdings add up to about 150 percent and
funds that answer 204. All names are invented and say "Demo".
"""

from __future__ import annotations

import base64
import functools
import marshal
import math
import random
from dataclasses import dataclass, field, fields
from datetime import date, timedelta

from dashboard.api.periods import quarter_end, valid_periods

DEMO_LABEL = "DEMO DATA — fictional funds and companies"
DEFAULT_SEED = 2026
BE_OFFSET = 543  # Buddhist-era year = Gregorian year + 543

# ---- text pools -----------------------------------------------------------------------------------

# (abbreviation, English stem, Thai stem) of the fictional asset management companies.
AMC_STEMS = (
    ("DCP", "Chao Phraya", "เจ้าพระยา"),
    ("DDI", "Doi Inthanon", "ดอยอินทนนท์"),
    ("DAD", "Andaman", "อันดามัน"),
    ("DMK", "Mekong", "แม่โขง"),
    ("DLN", "Lanna", "ล้านนา"),
    ("DSM", "Similan", "สิมิลัน"),
    ("DKY", "Khao Yai", "เขาใหญ่"),
    ("DPK", "Phu Kradueng", "ภูกระดึง"),
    ("DSK", "Sukhothai", "สุโขทัย"),
)
AMC_NAME_EN = "Demo {p} Asset Management Co., Ltd."
AMC_NAME_TH = "บริษัทหลักทรัพย์จัดการกองทุน เดโม {p} จำกัด"


@dataclass(frozen=True)
class FundKind:
    """A kind of fund: its names, what it holds, its risk and its fee level."""

    code: str
    name_en: str  # "{p}" is the company stem; "{t}" a fixed-term label
    name_th: str
    portfolio: str | None  # holdings profile (PORTFOLIO_PROFILES); None: no E6 data
    risk: str
    country_flag: str
    theme: str  # text group for suitability, allocation and returns
    mgmt_fee: float  # management fee ceiling, percent a year


FUND_KINDS = {
    k.code: k
    for k in (
        FundKind("EQ", "Demo {p} Thai Equity Fund", "กองทุนเปิด เดโม {p} หุ้นไทย", "equity", "RS6", "3", "equity", 1.9),
        FundKind("DIV", "Demo {p} Dividend Stock Fund", "กองทุนเปิด เดโม {p} หุ้นปันผล", "equity", "RS6", "3", "equity", 1.8),
        FundKind("FI", "Demo {p} Fixed Income Fund", "กองทุนเปิด เดโม {p} ตราสารหนี้", "bond", "RS4", "3", "bond", 0.9),
        FundKind("BC", "Demo {p} Bond & Cash Fund", "กองทุนเปิด เดโม {p} ตราสารหนี้และเงินสด", "bond", "RS3", "3", "bond", 0.7),
        FundKind("MM", "Demo {p} Money Market Fund", "กองทุนเปิด เดโม {p} ตลาดเงิน", "money", "RS2", "3", "money", 0.45),
        FundKind("MIX", "Demo {p} Flexible Balanced Fund", "กองทุนเปิด เดโม {p} ผสมแบบยืดหยุ่น", "mixed", "RS5", "4", "mixed", 1.6),
        FundKind("GEQ", "Demo {p} Global Equity Fund", "กองทุนเปิด เดโม {p} หุ้นโลก", "fif", "RS6", "1", "foreign", 1.7),
        FundKind("GF", "Demo {p} Global Growth Feeder Fund", "กองทุนเปิด เดโม {p} โกลบอล โกรท ฟีดเดอร์", "feeder", "RS6", "1", "foreign", 1.8),
        FundKind("SSF", "Demo {p} Thai Equity Super Savings Fund", "กองทุนเปิด เดโม {p} หุ้นไทยเพื่อการออม", "equity", "RS6", "3", "equity", 1.7),
        FundKind("RMF", "Demo {p} Balanced Retirement Mutual Fund", "กองทุนเปิด เดโม {p} ผสมเพื่อการเลี้ยงชีพ", "mixed", "RS5", "4", "mixed", 1.4),
        FundKind("TESG", "Demo {p} Thai ESG Fund", "กองทุนเปิด เดโม {p} ไทยเพื่อความยั่งยืน", "equity", "RS6", "3", "equity", 1.5),
        FundKind("FT", "Demo {p} Foreign Fixed Income {t} Fund", "กองทุนรวม เดโม {p} ตราสารหนี้ต่างประเทศ {t}", "term", "RS4", "1", "term", 0.5),
        FundKind("TRIG", "Demo {p} Thai Equity Trigger Fund", "กองทุนเปิด เดโม {p} หุ้นไทยทริกเกอร์", "equity", "RS6", "3", "equity", 1.6),
        FundKind("GOLD", "Demo {p} Gold Fund", "กองทุนเปิด เดโม {p} ทองคำ", None, "RS8", "1", "gold", 1.0),
        FundKind("CX", "Demo {p} Complex Return Fund", "กองทุนเปิด เดโม {p} คอมเพล็กซ์ รีเทิร์น", "structured", "RS81", "2", "complex", 1.0),
        FundKind("LTF", "Demo {p} Long Term Equity Fund", "กองทุนเปิด เดโม {p} หุ้นระยะยาว", "equity", "RS6", "3", "equity", 1.9),
    )
}
ACTIVE_CORE = ("EQ", "FI", "MM", "MIX", "GEQ")
ACTIVE_EXTRAS = ("DIV", "BC", "SSF", "RMF", "TESG", "FT", "TRIG")
# Kinds every data set must hold somewhere, by company index: the 150 % feeder, the gold fund
# without holdings, a trigger fund, a fixed-term fund and the two complex funds (RS81 and RS8+).
FORCED_KINDS = {0: ("GF",), 1: ("CX",), 2: ("GOLD",), 3: ("TRIG",), 4: ("CX",), 5: ("FT",)}
OLD_KINDS = ("LTF", "FT", "FI", "EQ", "MIX")
OLD_STATUSES = ("LI", "CA", "EX", "LI", "LI", "CA", "EX", "LI", "CA", "LI", "EX", "LI", "CA", "LI")

# Unit classes: suffix -> (Thai name, English name).
CLASS_TYPES = {
    "A": ("ชนิดสะสมมูลค่า", "Accumulation class"),
    "D": ("ชนิดจ่ายเงินปันผล", "Dividend class"),
    "R": ("ชนิดขายคืนหน่วยลงทุนอัตโนมัติ", "Auto-redemption class"),
    "E": ("ชนิดช่องทางอิเล็กทรอนิกส์", "E-class"),
    "SSF": ("ชนิดเพื่อการออม", "Super Savings Fund class"),
    "P": ("ชนิดกองทุนสำรองเลี้ยงชีพ", "Provident fund class"),
}
CLASS_EXTRA_DESC = ("-", "", "ไม่จ่ายเงินปันผล", "จ่ายเงินปันผลไม่เกินปีละ 4 ครั้ง", "ขายคืนอัตโนมัติปีละ 4 ครั้ง", " ")

REFERENCE_PERIODS = ("year to date", "3 months", "6 months", "1 year", "3 years", "5 years", "10 years", "inception date")
PERIOD_YEARS = {"3 months": 0.25, "6 months": 0.5, "1 year": 1.0, "3 years": 3.0, "5 years": 5.0, "10 years": 10.0}
PERF_FUND = "ผลตอบแทนกองทุนรวม"
PERF_BENCH = "ผลตอบแทนตัวชี้วัด"
PERF_FUND_VOL = "ความผันผวนของกองทุนรวม"
PERF_BENCH_VOL = "ความผันผวนของตัวชี้วัด"
PERF_PEER = "ค่าเฉลี่ยในกลุ่มเดียวกัน"
PERFORMANCE_TYPES = (PERF_FUND, PERF_BENCH, PERF_FUND_VOL, PERF_BENCH_VOL, PERF_PEER)
# theme -> (mean return, volatility), percent a year
RETURN_PROFILES = {
    "equity": (4.0, 14.0), "bond": (2.2, 2.0), "money": (1.6, 0.3), "mixed": (3.5, 8.0),
    "foreign": (7.0, 16.0), "term": (2.5, 1.5), "gold": (8.0, 13.0), "complex": (3.0, 10.0),
}

FEE_FRONT = "ค่าธรรมเนียมการขายหน่วยลงทุน (Front-end Fee)"
FEE_BACK = "ค่าธรรมเนียมการรับซื้อคืนหน่วยลงทุน (Back-end Fee)"
FEE_SWITCH_IN = "ค่าธรรมเนียมการสับเปลี่ยนหน่วยลงทุนเข้า (Switching-in Fee)"
FEE_SWITCH_OUT = "ค่าธรรมเนียมการสับเปลี่ยนหน่วยลงทุนออก (Switching-out Fee)"
FEE_MGMT = "ค่าธรรมเนียมการจัดการ (Management Fee)"
FEE_TRUSTEE = "ค่าธรรมเนียมผู้ดูแลผลประโยชน์ (Trustee Fee)"
FEE_REGISTRAR = "ค่าธรรมเนียมนายทะเบียน (Registrar Fee)"
FEE_TOTAL = "ค่าใช้จ่ายรวมทั้งหมด (Total Expense)"
UNIT_NAV = "% ต่อปีของ NAV"
UNIT_TRADE = "% ของมูลค่าซื้อขาย"
FEE_REMARKS = (
    "รวมภาษีมูลค่าเพิ่มแล้ว",
    "ปัจจุบันยกเว้นการเรียกเก็บ",
    "ค่าธรรมเนียมดังกล่าวรวมภาษีมูลค่าเพิ่ม ภาษีธุรกิจเฉพาะ หรือภาษีอื่นใดแล้ว",
    "เรียกเก็บไม่เกิน 1.00% หากถือครองน้อยกว่า 180 วัน",
    "ข้อมูลตัวอย่างเพื่อการสาธิต (demo)",
)

# theme -> asset classes of the allocation (E13), Thai names as the service sends them
ALLOCATION_ASSETS = {
    "equity": ("หุ้นสามัญ", "ใบสำคัญแสดงสิทธิ", "หน่วยลงทุนของกองทุนอสังหาริมทรัพย์", "เงินฝากธนาคาร", "ทรัพย์สินอื่นและหนี้สินอื่น"),
    "bond": ("พันธบัตรรัฐบาล", "ตั๋วเงินคลัง", "หุ้นกู้ภาคเอกชน", "เงินฝากธนาคาร", "ตราสารหนี้ต่างประเทศ", "ทรัพย์สินอื่นและหนี้สินอื่น"),
    "money": ("ตั๋วเงินคลังและพันธบัตรธนาคารแห่งประเทศไทย", "เงินฝากธนาคาร", "ตั๋วแลกเงิน", "ทรัพย์สินอื่นและหนี้สินอื่น"),
    "mixed": ("หุ้นสามัญ", "พันธบัตรรัฐบาล", "หุ้นกู้ภาคเอกชน", "หน่วยลงทุนของกองทุนต่างประเทศ", "เงินฝากธนาคาร", "ตราสารอนุพันธ์", "หน่วยลงทุนของกองทุนอสังหาริมทรัพย์", "ทรัพย์สินอื่นและหนี้สินอื่น"),
    "foreign": ("หน่วยลงทุนของกองทุนต่างประเทศ", "เงินฝากธนาคาร", "สัญญาซื้อขายล่วงหน้า", "ทรัพย์สินอื่นและหนี้สินอื่น"),
    "term": ("เงินฝากธนาคารต่างประเทศ", "ตราสารหนี้ต่างประเทศ", "พันธบัตรรัฐบาล", "สัญญาซื้อขายล่วงหน้า"),
    "gold": ("หน่วยลงทุนของกองทุนทองคำต่างประเทศ", "เงินฝากธนาคาร", "สัญญาซื้อขายล่วงหน้า", "ทรัพย์สินอื่นและหนี้สินอื่น"),
    "complex": ("หุ้นกู้อนุพันธ์", "พันธบัตรรัฐบาล", "เงินฝากธนาคาร", "ทรัพย์สินอื่นและหนี้สินอื่น"),
}

# Suitability texts (E8) by theme; lines are joined with a line break, or with a stray "n".
SUITABLE = {
    "equity": ("ผู้ลงทุนที่ต้องการลงทุนในหุ้นไทยระยะยาว", "สามารถรับความผันผวนของราคาหุ้นได้", "ต้องการโอกาสรับผลตอบแทนสูงกว่าเงินฝาก"),
    "bond": ("ผู้ลงทุนที่ต้องการรายได้สม่ำเสมอ", "รับความเสี่ยงจากอัตราดอกเบี้ยได้บ้าง"),
    "money": ("ผู้ลงทุนที่ต้องการพักเงินระยะสั้น", "ต้องการสภาพคล่องสูง"),
    "mixed": ("ผู้ลงทุนที่ต้องการกระจายการลงทุนในหลายสินทรัพย์", "ลงทุนระยะกลางถึงยาวได้"),
    "foreign": ("ผู้ลงทุนที่ต้องการกระจายการลงทุนไปต่างประเทศ", "รับความเสี่ยงจากอัตราแลกเปลี่ยนได้"),
    "term": ("ผู้ลงทุนที่ถือหน่วยลงทุนได้จนครบอายุโครงการ", "ต้องการผลตอบแทนที่คาดการณ์ได้"),
    "gold": ("ผู้ลงทุนที่ต้องการลงทุนในทองคำ", "รับความผันผวนของราคาทองคำได้"),
    "complex": ("ผู้ลงทุนที่มีความรู้ความเข้าใจในตราสารอนุพันธ์", "รับการขาดทุนเงินต้นได้"),
}
NOT_SUITABLE = (
    "ผู้ลงทุนที่ต้องการเงินต้นคืนเต็มจำนวน",
    "ผู้ลงทุนที่ต้องการใช้เงินในระยะสั้น",
    "ผู้ลงทุนที่รับความผันผวนของมูลค่าหน่วยลงทุนไม่ได้",
)
NOTICES = (
    "การลงทุนในหน่วยลงทุนมิใช่การฝากเงิน",
    "ผลการดำเนินงานในอดีตมิได้เป็นสิ่งยืนยันถึงผลการดำเนินงานในอนาคต",
    "ข้อมูลนี้เป็นข้อมูลสมมติเพื่อการสาธิตเท่านั้น (demo data)",
)
RISK_DESC = {
    "RS1": "ระดับ 1 : เสี่ยงต่ำ", "RS2": "ระดับ 2 : เสี่ยงปานกลางค่อนข้างต่ำ", "RS3": "ระดับ 3 : เสี่ยงปานกลางค่อนข้างต่ำ",
    "RS4": "ระดับ 4 : เสี่ยงปานกลางค่อนข้างต่ำ", "RS5": "ระดับ 5 : เสี่ยงปานกลางค่อนข้างสูง", "RS6": "ระดับ 6 : เสี่ยงสูง",
    "RS7": "ระดับ 7 : เสี่ยงสูง", "RS8": "ระดับ 8 : เสี่ยงสูงมาก", "RS81": "ระดับ 8+ : เสี่ยงสูงมาก (กองทุนที่มีความซับซ้อน)",
    "RS8+": "ระดับ 8+ : เสี่ยงสูงมาก (กองทุนที่มีความซับซ้อน)",
}
REDEMP_OTHER = ("ทุกวันทำการสุดท้ายของเดือน", "ทุกวันทำการที่ 5 และ 20 ของเดือน", "ปีละ 2 ครั้ง ตามที่บริษัทจัดการประกาศ")

# Securities: fictional issuers named after Thai provinces and industries.
PROVINCES = (
    ("Lampang", "LP"), ("Nan", "NN"), ("Phrae", "PR"), ("Trang", "TR"), ("Satun", "ST"), ("Yala", "YL"),
    ("Loei", "LO"), ("Surin", "SR"), ("Chanthaburi", "CT"), ("Rayong", "RY"), ("Ranong", "RN"), ("Krabi", "KB"),
    ("Phang Nga", "PN"), ("Tak", "TK"), ("Nakhon Phanom", "NP"), ("Udon", "UD"), ("Korat", "KR"), ("Hua Hin", "HH"),
    ("Pattani", "PT"), ("Chumphon", "CP"),
)
INDUSTRIES = (
    ("Energy", "E"), ("Foods", "F"), ("Logistics", "L"), ("Retail", "R"), ("Digital", "D"), ("Healthcare", "H"),
    ("Property", "P"), ("Materials", "M"), ("Telecom", "T"), ("Power", "W"), ("Finance", "N"), ("Tourism", "U"),
)
BANKS = (("Mae Ping", "DMPB"), ("Golden Swan", "DGSB"), ("Lotus Pond", "DLTB"), ("Rice Field", "DRFB"), ("Teak Wood", "DTKB"), ("Ivory Elephant", "DIEB"))
FOREIGN_THEMES = (
    "World Equity", "US Growth", "Europe Value", "Asia ex Japan", "Global Technology", "Healthcare Innovation",
    "Clean Energy", "Global Bond", "Emerging Market Debt", "Global Property", "Japan Equity", "China A-Share",
    "India Equity", "Global Dividend", "Robotics", "Short Duration Credit",
)
MASTER_FUNDS = ("Global Growth", "Global Quality", "US Innovation", "Asia Leaders", "Future Mobility", "World Income")
FOREIGN_ISSUERS = ("Pearl Gulf Bank", "Seoul River Bank", "Marina Bay Finance", "Nordic Fjord Bank", "Silk Road Capital", "Harbour Credit Bank")

# Asset/liability codes of the holdings (E6); 903 is the NAV total line, not a holding.
ASSET_EQUITY, ASSET_GOV, ASSET_BILL, ASSET_CORP, ASSET_DEPOSIT = "101", "201", "202", "211", "301"
ASSET_FOREIGN_FUND, ASSET_FORWARD, ASSET_STRUCTURED, ASSET_FOREIGN_DEBT, ASSET_OTHER = "401", "501", "601", "221", "701"
ASSET_NAV_TOTAL = "903"

# profile -> (fewest lines, most lines, ((security category, weight scale), ...), deposit weight scale)
PORTFOLIO_PROFILES = {
    "equity": (20, 70, (("th_equity", 1.0),), 0.04),
    "bond": (15, 60, (("gov_bond", 1.2), ("corp_bond", 0.8), ("bot_bill", 0.6)), 0.06),
    "money": (15, 40, (("bot_bill", 1.0), ("corp_bond", 0.4)), 0.4),
    "mixed": (40, 118, (("th_equity", 1.0), ("gov_bond", 1.0), ("corp_bond", 0.7), ("foreign_fund", 0.9)), 0.04),
    "fif": (15, 28, (("foreign_fund", 1.0),), 0.05),
    "term": (15, 25, (("foreign_debt", 1.0), ("gov_bond", 0.3)), 0.1),
    "structured": (15, 22, (("structured", 1.0), ("gov_bond", 0.5)), 0.1),
}

# Licence side: kinds of licensed entity (Thai and English name templates).
LICENSEE_TYPES = (
    ("บริษัทหลักทรัพย์ เดโม {p} จำกัด (มหาชน)", "Demo {p} Securities Public Company Limited"),
    ("บริษัทหลักทรัพย์นายหน้าซื้อขายหน่วยลงทุน เดโม {p} จำกัด", "Demo {p} Fund Brokerage Co., Ltd."),
    ("บริษัทที่ปรึกษาการลงทุน เดโม {p} จำกัด", "Demo {p} Investment Advisory Co., Ltd."),
    ("บริษัทสัญญาซื้อขายล่วงหน้า เดโม {p} จำกัด", "Demo {p} Futures Co., Ltd."),
    ("ธนาคาร เดโม {p} จำกัด (มหาชน)", "Demo {p} Bank Public Company Limited"),
)
PLACES_TH = (
    ("Lampang", "ลำปาง"), ("Nan", "น่าน"), ("Phrae", "แพร่"), ("Trang", "ตรัง"), ("Satun", "สตูล"), ("Yala", "ยะลา"),
    ("Loei", "เลย"), ("Surin", "สุรินทร์"), ("Chanthaburi", "จันทบุรี"), ("Rayong", "ระยอง"), ("Ranong", "ระนอง"),
    ("Krabi", "กระบี่"), ("Tak", "ตาก"), ("Udon", "อุดร"), ("Korat", "โคราช"), ("Chumphon", "ชุมพร"),
    ("Mae Ping", "แม่ปิง"), ("Golden Swan", "หงส์ทอง"), ("Lotus Pond", "สระบัว"), ("Teak Wood", "ไม้สัก"),
)
FORMER_PLACES = (("Old Siam", "สยามเก่า"), ("Riverside", "ริมน้ำ"), ("Night Market", "ตลาดโต้รุ่ง"), ("Tuk Tuk", "ตุ๊กตุ๊ก"),
                 ("Monsoon", "มรสุม"), ("Coconut Grove", "สวนมะพร้าว"), ("Floating Market", "ตลาดน้ำ"), ("Lantern", "โคมลอย"),
                 ("Jasmine", "มะลิ"), ("Mango Tree", "ต้นมะม่วง"))
FIRST_NAMES = (
    ("นาย", "Mr.", "สมชาย", "Somchai"), ("นาง", "Mrs.", "สมศรี", "Somsri"), ("นางสาว", "Ms.", "วิภาวดี", "Wipawadee"),
    ("นาย", "Mr.", "ประเสริฐ", "Prasert"), ("นางสาว", "Ms.", "กมลา", "Kamala"), ("นาย", "Mr.", "ธนพล", "Thanaphon"),
    ("นาย", "Mr.", "ณัฐวุฒิ", "Nattawut"), ("นางสาว", "Ms.", "พิมพ์ชนก", "Pimchanok"), ("นาง", "Mrs.", "อรุณี", "Arunee"),
    ("นาย", "Mr.", "ชัยวัฒน์", "Chaiwat"), ("นางสาว", "Ms.", "ศิริพร", "Siriporn"), ("นาย", "Mr.", "วีระ", "Weera"),
    ("นาง", "Mrs.", "นภา", "Napa"), ("นาย", "Mr.", "กิตติ", "Kitti"), ("นางสาว", "Ms.", "ปิยะ", "Piya"),
)
SURNAMES = (("เดโมวงศ์", "Demowong"), ("ทดสอบกุล", "Thotsobkul"), ("ตัวอย่างสกุล", "Tuayangsakul"),
            ("สาธิตพงษ์", "Sathitpong"), ("จำลองศักดิ์", "Jamlongsak"), ("สมมุติชัย", "Sommutchai"))
# (lic_code, has a registration number, has no expiry, privilege it may carry)
LICENCE_CODES = (("F1", True, False, ""), ("F2", True, False, ""), ("IC", True, False, ""), ("IA", True, False, ""),
                 ("IP", True, False, ""), ("FM", False, False, "FM"), ("MD", False, True, "MD"), ("DR", False, True, ""))
DUTY_CODES = ("MD", "FM", "IC", "F1", "DR", "IA")

LAW_SECTIONS = (
    "มาตรา 243 และมาตรา 244/3 แห่งพระราชบัญญัติหลักทรัพย์และตลาดหลักทรัพย์ พ.ศ. 2535 (Sections 243 and 244/3 of the Securities and Exchange Act B.E. 2535)",
    "มาตรา 125 แห่งพระราชบัญญัติหลักทรัพย์และตลาดหลักทรัพย์ พ.ศ. 2535 (Section 125 of the Securities and Exchange Act B.E. 2535)",
    "มาตรา 90 แห่งพระราชบัญญัติสัญญาซื้อขายล่วงหน้า พ.ศ. 2546 (Section 90 of the Derivatives Act B.E. 2546)",
    "มาตรา 281/2 แห่งพระราชบัญญัติหลักทรัพย์และตลาดหลักทรัพย์ พ.ศ. 2535 (Section 281/2 of the Securities and Exchange Act B.E. 2535)",
)
ENFORCEMENT_FACTS = (
    "ส่งคำสั่งซื้อขายหุ้น {t} ต่อเนื่องเพื่อให้ราคาผิดไปจากสภาพปกติของตลาด (placed a series of orders in {t} shares to move the price away from normal market conditions) [demo case]",
    "ใช้ข้อมูลภายในซื้อหุ้น {t} ก่อนการเปิดเผยต่อสาธารณชน (traded {t} shares on inside information before it was made public) [demo case]",
    "ไม่จัดทำบันทึกการแนะนำการลงทุนให้ลูกค้าตามหลักเกณฑ์ (did not record investment advice given to clients as the rules require) [demo case]",
    "ลงนามในเอกสารการรู้จักลูกค้าแทนลูกค้า (signed know-your-customer forms on behalf of clients) [demo case]",
    "ไม่ดูแลให้บริษัทเปิดเผยข้อมูลที่ถูกต้องต่อผู้ลงทุน (failed to ensure the company disclosed accurate information to investors) [demo case]",
)
ALERT_ACTS = (
    ("ชักชวนให้ลงทุนในสินทรัพย์ดิจิทัลโดยไม่ได้รับอนุญาต", "soliciting investment in digital assets without a licence"),
    ("แอบอ้างชื่อบริษัทหลักทรัพย์เพื่อหลอกลวงให้ลงทุน", "impersonating a securities company to lure investors"),
    ("ประกอบธุรกิจจัดการกองทุนโดยไม่ได้รับใบอนุญาต", "operating a fund management business without a licence"),
    ("ให้คำแนะนำการลงทุนในหลักทรัพย์โดยไม่ได้รับความเห็นชอบ", "giving investment advice without approval"),
    ("เสนอขายหลักทรัพย์ต่อประชาชนโดยไม่ได้รับอนุญาต", "offering securities to the public without approval"),
)
ALERT_ENTITIES = ("Demo Golden Lotus Capital", "Demo Quick Rich Club", "Demo Moonshot Trading Group", "Demo Easy Profit Line Group",
                  "Demo Thai Wealth Signals", "Demo Crypto Elephant", "Demo Sure Win Forex", "Demo Rice Barn Ventures",
                  "Demo Lucky Star Fund", "Demo Jade Dragon Advisers")

# ---- successor layout only (/v2/fund, /v1/license-check): values the legacy records never carry --

SUCCESSOR_STATUS = {"RG": "Registered", "SE": "IPO", "EX": "Expired", "CA": "Canceled", "LI": "Liquidated"}
TAX_SSF = "กองทุนรวมเพื่อการออม (Super Savings Fund : SSF)"
TAX_THAI_ESG = "กองทุนรวมไทยเพื่อความยั่งยืน (Thailand ESG Fund : Thai ESG)"
# theme -> policy class as the profiles endpoint writes it
POLICY_DESC = {
    "equity": "ตราสารทุน", "bond": "ตราสารหนี้", "money": "ตราสารหนี้", "mixed": "ผสม", "foreign": "ตราสารทุน",
    "term": "ตราสารหนี้", "gold": "ทรัพย์สินทางเลือก", "complex": "อื่น ๆ",
}
# fund kind -> management styles it may have (the first is the usual one)
MANAGEMENT_STYLES = {
    "GF": ("AN",), "GEQ": ("AM", "PM"), "FT": ("BH",), "GOLD": ("PN",), "CX": ("OT",), "TRIG": ("AM",),
    "MM": ("AM",), "EQ": ("AM", "AM", "PM", "SM"), "DIV": ("AM", "SM"), "SSF": ("AM", "PM"), "TESG": ("AM", "PM"),
}
FX_POLICIES = (
    "ป้องกันความเสี่ยงทั้งหมดหรือเกือบทั้งหมด (ไม่น้อยกว่า 90% ของมูลค่าความเสี่ยง)",
    "ดุลยพินิจ (dynamic hedging) (0%-105% ของมูลค่าความเสี่ยง)",
    "ไม่ป้องกันความเสี่ยง",
)
COUNTRY_TH = {"LU": "ลักเซมเบิร์ก", "IE": "ไอร์แลนด์", "US": "สหรัฐอเมริกา"}
# approval types of persons (E17 lic_code) and duty codes (E18 lic_action_code): Thai and English names
LICENCE_NAMES = {
    "F1": ("ผู้แนะนำการลงทุนด้านหลักทรัพย์", "Securities investment consultant"),
    "F2": ("ผู้แนะนำการลงทุนด้านหลักทรัพย์ที่มีความซับซ้อน", "Complex securities investment consultant"),
    "IC": ("ผู้แนะนำการลงทุนด้านตลาดทุน", "Capital market investment consultant"),
    "IA": ("นักวิเคราะห์การลงทุน", "Investment analyst"),
    "IP": ("ผู้วางแผนการลงทุน", "Investment planner"),
    "FM": ("ผู้จัดการกองทุนรวม", "Mutual fund manager"),
    "MD": ("ผู้บริหาร", "Executive"),
    "DR": ("กรรมการ", "Director"),
}
DUTY_NAMES = {
    "MD": ("กรรมการผู้จัดการ", "Managing director"),
    "FM": ("ผู้จัดการกองทุน", "Fund manager"),
    "IC": ("ผู้แนะนำการลงทุน", "Investment consultant"),
    "F1": ("ผู้แนะนำการลงทุนด้านหลักทรัพย์", "Securities investment consultant"),
    "DR": ("กรรมการ", "Director"),
    "IA": ("นักวิเคราะห์การลงทุน", "Investment analyst"),
}
# enforcement action type (1..5, as enforcement_types numbers them) -> the case list's Thai type
ENFORCEMENT_TYPE_TH = {1: "กล่าวโทษ", 2: "เปรียบเทียบ", 3: "ปรับทางปกครอง", 4: "การดำเนินการทางบริหาร", 5: "การดำเนินการทางแพ่ง"}
ACT_SECURITIES = "พระราชบัญญัติหลักทรัพย์และตลาดหลักทรัพย์ พ.ศ. 2535"
ACT_DERIVATIVES = "พระราชบัญญัติสัญญาซื้อขายล่วงหน้า พ.ศ. 2546"
APPLY_LICENSED, APPLY_REGISTERED = "ใบอนุญาต", "จดทะเบียน"
# kind of company -> its licences: (lic_code, Thai name, English name, act, apply type)
COMPANY_LICENCES = {
    "amc": (("MF", "การจัดการกองทุนรวม", "Mutual fund management", ACT_SECURITIES, APPLY_LICENSED),
            ("PF", "การจัดการกองทุนส่วนบุคคล", "Private fund management", ACT_SECURITIES, APPLY_LICENSED),
            ("DF", "ผู้จัดการเงินทุนสัญญาซื้อขายล่วงหน้า", "Derivatives fund management", ACT_DERIVATIVES, APPLY_REGISTERED)),
    "securities": (("BR", "การเป็นนายหน้าซื้อขายหลักทรัพย์", "Securities brokerage", ACT_SECURITIES, APPLY_LICENSED),
                   ("DL", "การค้าหลักทรัพย์", "Securities dealing", ACT_SECURITIES, APPLY_LICENSED),
                   ("UW", "การจัดจำหน่ายหลักทรัพย์", "Securities underwriting", ACT_SECURITIES, APPLY_LICENSED),
                   ("DA", "การเป็นตัวแทนซื้อขายสัญญาซื้อขายล่วงหน้า", "Derivatives agent", ACT_DERIVATIVES, APPLY_LICENSED)),
    "brokerage": (("BU", "การเป็นนายหน้าซื้อขายหลักทรัพย์ที่เป็นหน่วยลงทุน", "Mutual fund unit brokerage", ACT_SECURITIES, APPLY_LICENSED),),
    "advisory": (("AD", "การเป็นที่ปรึกษาการลงทุน", "Investment advisory", ACT_SECURITIES, APPLY_LICENSED),
                 ("DV", "การเป็นที่ปรึกษาสัญญาซื้อขายล่วงหน้า", "Derivatives advisory", ACT_DERIVATIVES, APPLY_REGISTERED)),
    "futures": (("DA", "การเป็นตัวแทนซื้อขายสัญญาซื้อขายล่วงหน้า", "Derivatives agent", ACT_DERIVATIVES, APPLY_LICENSED),
                ("DD", "การเป็นผู้ค้าสัญญาซื้อขายล่วงหน้า", "Derivatives dealer", ACT_DERIVATIVES, APPLY_LICENSED)),
    "bank": (("BU", "การเป็นนายหน้าซื้อขายหลักทรัพย์ที่เป็นหน่วยลงทุน", "Mutual fund unit brokerage", ACT_SECURITIES, APPLY_REGISTERED),
             ("SL", "การยืมและให้ยืมหลักทรัพย์", "Securities borrowing and lending", ACT_SECURITIES, APPLY_REGISTERED)),
}
# business activities under a licence: (code suffix, Thai name, English name)
BUSINESS_ACTIONS = (
    ("01", "ให้บริการแก่ผู้ลงทุนทั่วไป", "Service to general investors"),
    ("02", "ให้บริการแก่ผู้ลงทุนสถาบัน", "Service to institutional investors"),
    ("03", "ให้บริการผ่านระบบอินเทอร์เน็ต", "Internet-based service"),
    ("04", "ให้บริการเฉพาะผู้ลงทุนรายใหญ่", "Service to high-net-worth investors only"),
)


# ---- the data set ---------------------------------------------------------------------------------


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
    former_licensees: list[dict] = field(default_factory=list)  # E16
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
    label: str = DEMO_LABEL

    def __repr__(self) -> str:
        return (f"DemoDataset(seed={self.seed}, today={self.today}, {len(self.funds)} funds, "
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


def generate_demo_dataset(seed: int = DEFAULT_SEED, today: date | None = None) -> DemoDataset:
    """The demo data set for `seed` as the service would show it on `today` (default: the real today).

    Generation is cached per (seed, today); every call returns an independent copy, so a caller
    that mutates its data set never changes anyone else's.
    """
    today = today or date.today()
    payloads = marshal.loads(_generated(seed, today))
    return DemoDataset(seed=seed, today=today, periods=valid_periods(today), **payloads)


@functools.lru_cache(maxsize=8)
def _generated(seed: int, today: date) -> bytes:
    # marshal: a deep copy of plain JSON-like data costs a few milliseconds, deepcopy ten times more
    return marshal.dumps(_Builder(seed, today).build())


# ---- small helpers --------------------------------------------------------------------------------


def _stamp(rng: random.Random, day: date) -> str:
    """A `last_upd_date` as the service writes it: ISO 8601, no zone, 0 to 3 fractional digits."""
    text = f"{day.isoformat()}T{rng.randrange(24):02d}:{rng.randrange(60):02d}:{rng.randrange(60):02d}"
    digits = rng.choice((0, 1, 2, 2, 3, 3))
    if digits:
        text += "." + str(rng.randrange(1, 10**digits)).zfill(digits)
    return text


def _blank(rng: random.Random) -> str | None:
    """One of the spellings the service uses for a missing text value."""
    return rng.choice(("-", "-", "-", "", "", None, " "))


def _b64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def _invalid_b64(text: str) -> str:
    # A data length one more than a multiple of 4 is never valid Base64, whatever the decoder.
    raw = _b64(text).rstrip("=")
    return raw[: len(raw) - (len(raw) % 4) + 1] if len(raw) % 4 != 1 else raw


def _isin(country: str, body: str) -> str:
    """A 12-character ISIN with a correct check digit (country + 9 characters + check)."""
    code = (country + body).upper()
    digits = "".join(str(int(c, 36)) for c in code)
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return code + str((10 - total % 10) % 10)


def _num(value: float, decimals: int = 2) -> str:
    return f"{value:.{decimals}f}"


def _trim(value: float, decimals: int = 4) -> str:
    """A number as people type it: 1.605, 0.1, 2."""
    return f"{value:.{decimals}f}".rstrip("0").rstrip(".") or "0"


def _month_end_before(day: date) -> date:
    return day.replace(day=1) - timedelta(days=1)


def _years_between(a: date, b: date) -> float:
    return (b - a).days / 365.25


@dataclass
class _FundPlan:
    """What the builder decided about one fund before writing its payloads."""

    proj_id: str
    kind: FundKind
    status: str
    amc_index: int
    abbr: str
    class_suffixes: tuple[str, ...]
    regis: date | None
    cancel: date | None
    term_months: int = 0
    holdings: bool = False
    flag_key: str = "invest_country_flage"
    risk: str = ""
    retail_type: str | None = "R"
    redemp_period: str = "1"
    perf_class_label: str = "-"  # class_abbr_name of a non-class fund's performance rows

    @property
    def class_names(self) -> list[str]:
        return [f"{self.abbr}-{s}" for s in self.class_suffixes]

    @property
    def is_old(self) -> bool:
        return self.status in ("EX", "CA", "LI")


class _Builder:
    """Builds every payload from one seed; each record kind has its own small method."""

    def __init__(self, seed: int, today: date):
        self.seed = seed
        self.today = today
        self.periods = valid_periods(today)
        self.rng = random.Random(seed)
        self.out: dict = {
            name: ({} if name not in ("amcs", "funds", "licensees", "former_licensees", "persons") else [])
            for name in (
                "amcs", "funds", "classes", "investment", "holdings", "project_type", "suitability", "return_estimate",
                "performance", "redemption", "fees", "allocation", "urls", "licensees", "former_licensees",
                "approvals", "duties", "enforcement", "enforcement_types", "alerts", "persons",
                "fund_details", "successor_amcs", "company_licences", "business_acts", "alert_details",
            )
        }
        self.out["successor_amcs"] = []
        self.out["empty_200"] = set()

    def sub_rng(self, *parts: object) -> random.Random:
        # A string seed is hashed with SHA-512 by `random`, so sub-streams are stable across runs.
        return random.Random(":".join(str(p) for p in (self.seed, *parts)))

    def build(self) -> dict:
        self.securities = self.build_securities()
        plans = self.plan_funds()
        for plan in plans:
            self.write_fund(plan)
        self.choose_empty_200(plans)
        self.build_licence_side()
        self.build_successor_side(plans)  # last, and on its own random streams: the legacy records never change
        return self.out

    # ---- fund plan --------------------------------------------------------------------------------

    def plan_funds(self) -> list[_FundPlan]:
        rng = self.sub_rng("plan")
        for i, (abbr, stem_en, stem_th) in enumerate(AMC_STEMS):
            self.out["amcs"].append({
                "unique_id": f"C{101 + i:010d}", "abbr": abbr,
                "name_en": AMC_NAME_EN.format(p=stem_en), "name_th": AMC_NAME_TH.format(p=stem_th),
            })
        specs: list[tuple[int, str, str]] = []  # (company index, kind, status)
        old_status = iter(OLD_STATUSES * 3)
        for i in range(len(AMC_STEMS)):
            forced = FORCED_KINDS.get(i, ())
            kinds = list(ACTIVE_CORE) + list(forced) + rng.sample([k for k in ACTIVE_EXTRAS if k not in forced], 3)
            specs += [(i, k, "RG") for k in kinds]
            if i % 3 == 0:
                specs.append((i, "FT", "SE"))
            for _ in range(1 + i % 2):
                specs.append((i, rng.choice(OLD_KINDS), next(old_status)))
        numbers = rng.sample(range(101, 9999), len(specs))
        plans = [self.plan_fund(rng, n, *spec) for n, spec in zip(numbers, specs)]
        self.assign_variety(rng, plans)
        return plans

    def plan_fund(self, rng: random.Random, number: int, amc_index: int, kind_code: str, status: str) -> _FundPlan:
        kind = FUND_KINDS[kind_code]
        today = self.today
        if status == "RG":
            # Funds with holdings are old enough to have all twelve published quarters.
            regis = today - timedelta(days=rng.randint(1250, 6500))
            cancel = None
        elif status == "SE":
            regis, cancel = None, None
        elif status == "LI":
            regis = date(rng.randint(2004, 2016), rng.randint(1, 12), rng.randint(1, 28))
            cancel = regis + timedelta(days=rng.randint(200, 2400))
            cancel = min(cancel, date(2022, 4, 30))
        elif status == "CA":
            regis = None
            cancel = date(rng.randint(2010, 2021), rng.randint(1, 12), rng.randint(1, 28))
        else:  # EX
            regis, cancel = None, None
        if regis or cancel:
            approved_year = (regis or cancel).year
        elif status == "SE":
            approved_year = today.year
        else:  # an offer that expired before May 2022
            approved_year = rng.randint(2012, 2021)
        term_months = 0
        if kind_code == "FT":
            term_months = rng.choice((36, 48, 60)) if status == "RG" else rng.choice((3, 6, 6, 9, 12))
        elif kind_code == "TRIG":
            term_months = rng.choice((12, 18, 24))
        amc_abbr = AMC_STEMS[amc_index][0]
        multi: tuple[str, ...] = ()
        if status == "RG":
            if kind_code == "GF":
                multi = ("A", "R", "SSF")
            elif kind_code == "GEQ" and rng.random() < 0.6:
                multi = tuple(sorted(rng.sample(("A", "D", "R", "E"), rng.randint(2, 4))))
            elif kind_code in ("EQ", "RMF") and amc_index % 2 == 0:
                multi = tuple(sorted(rng.sample(("A", "D", "SSF", "E", "P"), rng.randint(2, 3))))
        if multi:
            abbr = f"{amc_abbr}{kind_code}"
        elif kind_code == "FT":
            abbr = f"{amc_abbr}-FT{term_months}M{rng.randint(1, 30)}"
        else:
            abbr = f"{amc_abbr}-{kind_code}"
        return _FundPlan(
            proj_id=f"M{number:04d}_{approved_year + BE_OFFSET}", kind=kind, status=status, amc_index=amc_index,
            abbr=abbr, class_suffixes=multi, regis=regis, cancel=cancel, term_months=term_months,
            holdings=status == "RG" and kind.portfolio is not None, risk=kind.risk,
        )

    def assign_variety(self, rng: random.Random, plans: list[_FundPlan]) -> None:
        """Spread the rare values over the funds so that every one occurs at least once."""
        seen: set[str] = set()
        for plan in plans:  # abbreviations are unique, as the service's are
            base, n = plan.abbr, 2
            while plan.abbr in seen:
                plan.abbr, n = f"{base}{n}", n + 1
            seen.add(plan.abbr)
        active = [p for p in plans if p.status == "RG"]
        cx = [p for p in active if p.kind.code == "CX"]
        cx[0].risk, cx[-1].risk = "RS81", "RS8+"
        cx[0].retail_type, cx[-1].retail_type = "A", "X"
        generic = [p for p in active if p.kind.code in ("EQ", "DIV", "FI", "BC", "MIX", "GEQ", "SSF", "RMF", "TESG")]
        order = rng.sample(generic, len(generic))
        for plan, retail in zip(order, ("N", "G", "H", "B", None, "N", "H")):
            plan.retail_type = retail
        for plan, code in zip(order[7:], ("2", "3", "4", "5", "6", "7", "8", "9", "2", "9")):
            plan.redemp_period = code
        for p in plans:
            if p.kind.code == "FT":
                p.redemp_period = "E"
            elif p.kind.code == "TRIG":
                p.redemp_period = "T"
            if p.kind.code == "MM":
                p.risk = rng.choice(("RS1", "RS2"))
            elif p.kind.code == "MIX" and rng.random() < 0.4:
                p.risk = "RS7" if rng.random() < 0.5 else "RS5"
        for plan in rng.sample(plans, 4):
            plan.flag_key = "invest_country_flag"
        singles = [p for p in active if not p.class_suffixes]
        singles[3].perf_class_label = "1"
        singles[8].perf_class_label = "main"
        # A couple of active funds without holdings besides the gold fund.
        for plan in rng.sample([p for p in active if p.holdings and p.kind.code != "GF"], 2):
            plan.holdings = False

    # ---- fund payloads ----------------------------------------------------------------------------

    def write_fund(self, plan: _FundPlan) -> None:
        rng = self.sub_rng("fund", plan.proj_id)
        pid = plan.proj_id
        out = self.out
        out["funds"].append(self.fund_record(rng, plan))
        active, old = plan.status == "RG", plan.is_old
        if plan.class_suffixes:
            out["classes"][pid] = self.class_records(rng, plan)
        if not old or rng.random() < 0.5:
            out["investment"][pid] = self.investment_records(rng, plan)
        if plan.holdings:
            out["holdings"][pid] = self.holdings_by_period(plan)
        if plan.status != "CA":  # a project cancelled before registration keeps no project type
            out["project_type"][pid] = self.project_type_record(rng, plan)
        if not old:
            out["suitability"][pid] = self.suitability_record(rng, plan)
        if plan.kind.code == "FT" and not old:
            out["return_estimate"][pid] = self.return_estimate_record(rng, plan)
        if active or (plan.status == "LI" and rng.random() < 0.25):
            out["performance"][pid] = self.performance_records(rng, plan)
        if not old or (plan.status == "LI" and rng.random() < 0.5):
            out["redemption"][pid] = self.redemption_record(rng, plan)
        if not old:
            out["fees"][pid] = self.fee_records(rng, plan)
        if active:
            out["allocation"][pid] = self.allocation_records(rng, plan)
        if not old or rng.random() < 0.5:
            out["urls"][pid] = self.url_record(rng, plan)

    def recent_stamp(self, rng: random.Random, plan: _FundPlan, within_days: int = 400) -> str:
        if plan.is_old:
            day = (plan.cancel or date(2021, 12, 31)) + timedelta(days=rng.randint(0, 60))
        else:
            day = self.today - timedelta(days=rng.randint(1, within_days))
        return _stamp(rng, day)

    def fund_record(self, rng: random.Random, plan: _FundPlan) -> dict:
        kind, (_, stem_en, stem_th) = plan.kind, AMC_STEMS[plan.amc_index]
        term = f"{plan.term_months}M" if plan.term_months < 12 else f"{plan.term_months // 12}Y"
        registered = plan.regis is not None
        return {
            "last_upd_date": self.recent_stamp(rng, plan),
            "proj_id": plan.proj_id,
            "regis_id": f"{rng.randint(1, 999):03d}/{plan.regis.year + BE_OFFSET}" if registered else _blank(rng),
            # never registered: a missing date, which for cancelled projects comes as a zero date
            "regis_date": plan.regis.isoformat() if registered else ("0000-00-00" if plan.status == "CA" else _blank(rng)),
            "cancel_date": plan.cancel.isoformat() if plan.cancel else rng.choice(("-", "")),
            "proj_name_th": kind.name_th.format(p=stem_th, t=term),
            "proj_name_en": kind.name_en.format(p=stem_en, t=term),
            "proj_abbr_name": plan.abbr,
            "fund_status": plan.status,
            "unique_id": self.out["amcs"][plan.amc_index]["unique_id"],
            "permit_us_investment": "Y" if rng.random() < 0.2 else "N",
            plan.flag_key: kind.country_flag if rng.random() < 0.85 else rng.choice(("2", "4")),
        }

    def class_records(self, rng: random.Random, plan: _FundPlan) -> list[dict]:
        stamp = self.recent_stamp(rng, plan)
        records = []
        for suffix, name in zip(plan.class_suffixes, plan.class_names):
            th, en = CLASS_TYPES[suffix]
            records.append({
                "proj_id": plan.proj_id, "last_upd_date": stamp, "proj_abbr_name": plan.abbr,
                "class_abbr_name": name, "class_name": f"{th} ({en})",
                "class_additional_desc": rng.choice(CLASS_EXTRA_DESC),
            })
        return records

    def investment_records(self, rng: random.Random, plan: _FundPlan) -> list[dict]:
        institutional = plan.retail_type in ("A", "N", "X", "H", "B")
        records = []
        for _ in plan.class_suffixes or (None,):
            first = "500000" if institutional else rng.choice(("1000", "1,000", "0.01", "1000.00", "500", "1", "-", "10000"))
            records.append({
                "last_upd_date": self.recent_stamp(rng, plan),
                "minimum_sub_ipo": first,
                "minimum_sub_ipo_cur": "บาท" if first != "-" else "-",
                "minimum_sub_ipo_addi_desc": rng.choice(("-", "", " ", None, "ลงทุนครั้งแรกผ่านช่องทางออนไลน์ขั้นต่ำ 1 บาท")),
                "minimum_sub": rng.choice(("1000", "0.01", "1000.00", "1", "-", "100")),
                "minimum_sub_cur": "บาท",
                "minimum_sub_addi_desc": _blank(rng),
                "minimum_redempt": rng.choice(("0", "-", "1000", "0.01", "500.00")),
                "minimum_redempt_cur": "บาท",
                "minimum_redempt_addi_desc": _blank(rng),
                "minimum_redempt_unit": rng.choice(("0", "-", "100", "0.0001", "100.0000")),
                "minimum_redempt_unit_addi_desc": _blank(rng),
                "lowbal_val": rng.choice((0, 0, 1000, 500.0, 100)),
                "lowbal_val_cur": "บาท",
                "lowbal_unit": rng.choice((0, 0, 100, 0.0001, 50.0)),
            })
        return records

    def project_type_record(self, rng: random.Random, plan: _FundPlan) -> dict:
        if plan.term_months:
            years, months = divmod(plan.term_months, 12)
            term = ("0", str(months), str(years)) if rng.random() < 0.7 else (str(plan.term_months * 30), "0", "0")
            flag = "Y"
        else:
            term = rng.choice((("-", "-", "-"), ("0", "0", "0"), (None, None, None), ("", "", "")))
            flag = "N"
        return {
            "last_upd_date": self.recent_stamp(rng, plan),
            "proj_retail_type": plan.retail_type,
            "proj_term_flag": flag,
            "proj_term_dd": term[0],
            "proj_term_mm": term[1],
            "proj_term_yy": term[2],
        }

    def suitability_record(self, rng: random.Random, plan: _FundPlan) -> dict:
        theme = plan.kind.theme
        stray_n = rng.random() < 0.3  # the line break came through as a bare "n"
        sep = "n" if stray_n else "\n"

        def encode(lines: tuple[str, ...]) -> str:
            return "" if rng.random() < 0.08 else _b64(sep.join(lines))

        record = {
            "last_upd_date": self.recent_stamp(rng, plan),
            "fund_suitable_desc": encode(SUITABLE[theme]),
            "fund_not_suitable_desc": encode(tuple(rng.sample(NOT_SUITABLE, 2))),
            "important_notice": encode(NOTICES),
            "risk_spectrum_desc": encode((RISK_DESC[plan.risk], f"ลงทุนใน{ALLOCATION_ASSETS[theme][0]}เป็นหลัก")),
            "risk_spectrum": plan.risk,
        }
        if plan.kind.code == "CX":  # seen in the wild: a field that is not Base64 at all
            record["important_notice"] = _invalid_b64(sep.join(NOTICES))
        return record

    def return_estimate_record(self, rng: random.Random, plan: _FundPlan) -> dict:
        total = rng.uniform(1.6, 3.4)
        expense = rng.uniform(0.05, 0.3)
        years, months = divmod(plan.term_months, 12)
        return {
            "last_upd_date": self.recent_stamp(rng, plan),
            "total_estimated_return": _num(total),
            "annual_estimated_expense": _num(expense),
            "annual_average_return": _num(total - expense),
            "investment_period_year": str(years),
            "investment_period_month": str(months),
        }

    def performance_records(self, rng: random.Random, plan: _FundPlan) -> list[dict]:
        as_of_day = _month_end_before(self.today) if not plan.is_old else (plan.cancel or date(2021, 12, 31))
        as_of = f"{as_of_day.isoformat()} 00:00:00.0000000"
        stamp = _stamp(rng, as_of_day + timedelta(days=rng.randint(3, 12)))
        inception = plan.regis or (as_of_day - timedelta(days=400))
        age = _years_between(inception, as_of_day)
        ytd = max(_years_between(date(as_of_day.year, 1, 1), as_of_day), 1 / 12)
        mu, sigma = RETURN_PROFILES[plan.kind.theme]
        has_benchmark = plan.kind.theme not in ("term", "complex")
        # One market path per fund: the classes differ only by their fees.
        base = {}
        for period in REFERENCE_PERIODS:
            years = {"year to date": ytd, "inception date": age}.get(period) or PERIOD_YEARS[period]
            if years > age + 0.01:
                base[period] = None
                continue
            if years >= 1:
                ret = rng.gauss(mu, sigma / math.sqrt(years))
            else:
                ret = rng.gauss(mu * years, sigma * math.sqrt(years))
            vol = sigma * rng.uniform(0.75, 1.25)
            base[period] = (ret, ret + rng.gauss(0.4, 1.2), vol, vol * rng.uniform(0.85, 1.1), ret + rng.gauss(0, 1.5))
        labels = plan.class_names or [plan.perf_class_label]
        decimals = 4 if rng.random() < 0.2 else 2
        records = []
        for n, label in enumerate(labels):
            fee_drag = 0.15 * n
            for t, type_desc in enumerate(PERFORMANCE_TYPES):
                for period in REFERENCE_PERIODS:
                    values = base[period]
                    if values is None or (t in (1, 3) and not has_benchmark):
                        val = None
                    elif t == 4 and rng.random() < 0.15:
                        val = None
                    else:
                        v = values[t] - (fee_drag if t == 0 else 0.0)
                        val = _num(v, decimals)
                    records.append({
                        "last_upd_date": stamp, "class_abbr_name": label, "performance_type_desc": type_desc,
                        "reference_period": period, "performance_val": val, "as_of_date": as_of,
                    })
        return records

    def redemption_record(self, rng: random.Random, plan: _FundPlan) -> dict:
        code = plan.redemp_period
        scheduled = code in ("E", "T")
        settle = {"money": "T+1", "foreign": "T+5", "term": "T+5", "gold": "T+4"}.get(plan.kind.theme, rng.choice(("T+2", "T+3", "T+3")))
        return {
            "last_upd_date": self.recent_stamp(rng, plan),
            "redemp_period": code,
            "redemp_period_oth": rng.choice(REDEMP_OTHER) if code == "9" else rng.choice(("-", "", None)),
            "settlement_period": settle,
            "buying_cut_off_time": "-" if scheduled else rng.choice(("15:30", "15:30", "15:00", "16:00", "14:00")),
            "selling_cut_off_time": "-" if scheduled else rng.choice(("15:30", "15:30", "15:00", "12:00")),
        }

    def fee_records(self, rng: random.Random, plan: _FundPlan) -> list[dict]:
        mgmt_ceiling = plan.kind.mgmt_fee * rng.uniform(0.9, 1.2)
        records = []
        for n, label in enumerate(plan.class_names or [plan.perf_class_label]):
            stamp = self.recent_stamp(rng, plan)
            mgmt = mgmt_ceiling * rng.uniform(0.55, 0.85) * (0.8 if n and rng.random() < 0.5 else 1.0)
            trustee = rng.uniform(0.015, 0.06)
            registrar = rng.uniform(0.05, 0.15)
            rows = [
                (FEE_FRONT, _trim(rng.choice((1.0, 1.5, 2.0, 3.0))), UNIT_TRADE, rng.choice(("ยกเว้น", "0", "1.00", "-", "0.50"))),
                (FEE_BACK, rng.choice(("1.00", "2.00", "ไม่เกิน 1.50")), UNIT_TRADE, rng.choice(("ยกเว้น", "-", "0", "0.25"))),
                (FEE_MGMT, _trim(mgmt_ceiling, 4), UNIT_NAV, _trim(mgmt, 4)),
                (FEE_TRUSTEE, _trim(trustee * 1.6, 4), UNIT_NAV, _trim(trustee, 4)),
                (FEE_REGISTRAR, rng.choice((_trim(registrar * 1.5, 4), "0.25 - 1.00")), UNIT_NAV, _trim(registrar, 4)),
                (FEE_TOTAL, _trim(mgmt_ceiling * 1.5 + 1.0, 3), UNIT_NAV, _trim(mgmt + trustee + registrar + rng.uniform(0.01, 0.1), 4)),
            ]
            if rng.random() < 0.5:
                rows.insert(2, (FEE_SWITCH_IN, "ไม่เกิน 1.50", UNIT_TRADE, rng.choice(("ยกเว้น", "-"))))
                rows.insert(3, (FEE_SWITCH_OUT, "ไม่เกิน 1.50", UNIT_TRADE, rng.choice(("ยกเว้น", "-"))))
            if plan.status == "SE":  # not charged yet: only the prospectus ceilings are known
                rows = [(desc, rate, unit, "-") for desc, rate, unit, _ in rows]
            for desc, rate, unit, actual in rows:
                remark = rng.choice(FEE_REMARKS) if rng.random() < 0.15 else rng.choice(("-", "", None))
                if actual == "ยกเว้น":
                    remark = "ปัจจุบันยกเว้นการเรียกเก็บ"
                records.append({
                    "last_upd_date": stamp, "class_abbr_name": label, "fee_type_desc": desc,
                    "rate": rate, "rate_unit": unit,
                    "actual_value": actual, "actual_value_unit": "-" if actual == "-" else unit,
                    "fee_other_desc": remark,
                })
        return records

    def allocation_records(self, rng: random.Random, plan: _FundPlan) -> list[dict]:
        names = ALLOCATION_ASSETS[plan.kind.theme]
        count = rng.randint(min(3, len(names)), min(8, len(names)))
        chosen = names[:count]
        weights = [rng.uniform(40, 90)] + [rng.uniform(0.5, 25) for _ in chosen[1:]]
        scale = 100.0 / sum(weights)
        ratios = [round(w * scale, 2) for w in weights]
        ratios[0] = round(ratios[0] + 100.0 - sum(ratios), 2) + rng.choice((0.0, 0.0, 0.01, -0.01))
        stamp = self.recent_stamp(rng, plan)
        return [
            {"last_upd_date": stamp, "asset_seq": str(i + 1), "asset_name": name, "asset_ratio": _num(ratio)}
            for i, (name, ratio) in enumerate(zip(chosen, ratios))
        ]

    def url_record(self, rng: random.Random, plan: _FundPlan) -> dict:
        stamp = self.recent_stamp(rng, plan)
        if plan.is_old or rng.random() < 0.4:
            return {"last_upd_date": stamp, "url_halfyear_report": "-", "url_annual_report": "-", "url_factsheet": "-"}
        amc = AMC_STEMS[plan.amc_index][0].lower()
        base = f"https://demo.invalid/{amc}/{plan.abbr.lower()}"
        return {
            "last_upd_date": stamp,
            "url_halfyear_report": f"{base}/semi-annual-report.pdf" if rng.random() < 0.7 else "-",
            "url_annual_report": f"{base}/annual-report.pdf",
            "url_factsheet": f"{base}/factsheet.pdf",
        }

    # ---- holdings ---------------------------------------------------------------------------------

    def build_securities(self) -> dict[str, list[tuple[str, str, str, str]]]:
        """The demo market, by category: (assetliab_id, issue_code, isin_code, issuer)."""
        rng = self.sub_rng("securities")
        today = self.today
        companies = [(f"Demo {p} {ind} PCL", f"D{pc}{ic}") for p, pc in PROVINCES for ind, ic in INDUSTRIES]
        companies = rng.sample(companies, 110)
        th_equity = []
        for n, (issuer, ticker) in enumerate(companies):
            isin = _isin("TH", f"{ticker[1:]}{n:03d}010") if rng.random() < 0.93 else "-"
            th_equity.append((ASSET_EQUITY, ticker, isin, issuer if rng.random() < 0.95 else "-"))
        corp_bond = []
        for n, (issuer, ticker) in enumerate(rng.sample(companies, 45)):
            due = today.year + rng.randint(1, 9)
            code = f"{ticker}{due % 100:02d}{'123456789ABC'[rng.randrange(12)]}A"
            isin = _isin("TH", f"{ticker[1:]}{n:02d}{due % 100:02d}A0") if rng.random() < 0.7 else "-"
            corp_bond.append((ASSET_CORP, code, isin, issuer))
        gov_bond = [
            (ASSET_GOV, f"DLB{(today.year + n) % 100:02d}{'369C'[n % 4]}A", _isin("TH", f"0623{n:02d}{(today.year + n) % 100:02d}0"), "Demo Treasury")
            for n in range(1, 16)
        ]
        bot_bill = []
        for n in range(20):
            due = today + timedelta(days=14 * (n + 1))
            bot_bill.append((ASSET_BILL, f"DCB{due:%y%m%d}A", _isin("TH", f"0B{due:%y%m%d}0") if n % 3 else "-", "Demo Central Bank"))
        deposit = [(ASSET_DEPOSIT, f"{code}-{kind}", "-", f"Demo {name} Bank PCL") for name, code in BANKS for kind in ("SA", "FD")]
        foreign_fund = []
        for n, theme in enumerate(FOREIGN_THEMES):
            initials = "".join(w[0] for w in theme.replace("-", " ").split())
            country = "IE" if n % 2 else "LU"
            foreign_fund.append((ASSET_FOREIGN_FUND, f"D{initials}-ETF", _isin(country, f"00D{n:03d}{initials[:3]:X<3}"), f"Demo {theme} UCITS ETF"))
        master_fund = [
            (ASSET_FOREIGN_FUND, f"DM-{name.upper().replace(' ', '')}-I", _isin("LU", f"99D{n:03d}MST"), f"Demo {name} Master Fund I-Acc USD")
            for n, name in enumerate(MASTER_FUNDS)
        ]
        foreign_debt = [
            (ASSET_FOREIGN_DEBT, f"D-CD-{issuer.split()[0].upper()}-{today.year + k}", _isin("XS", f"D{n:02d}{k}{issuer[:4].upper()}0") if k else "-", f"Demo {issuer}")
            for n, issuer in enumerate(FOREIGN_ISSUERS) for k in range(4)
        ]
        structured = [
            (ASSET_STRUCTURED, f"DSN-{code}-{n:02d}", "-", f"Demo {name} Bank PCL")
            for name, code in BANKS for n in range(1, 4)
        ]
        return {
            "th_equity": th_equity, "corp_bond": corp_bond, "gov_bond": gov_bond, "bot_bill": bot_bill,
            "deposit": deposit, "foreign_fund": foreign_fund, "master_fund": master_fund,
            "foreign_debt": foreign_debt, "structured": structured,
        }

    def holdings_by_period(self, plan: _FundPlan) -> dict[str, list[dict]]:
        """Twelve quarters, oldest first: weights drift, securities enter and leave."""
        rng = self.sub_rng("holdings", plan.proj_id)
        profile = plan.kind.portfolio
        feeder_150 = plan.kind.code == "GF" and plan.amc_index == 0
        with_nav_line = rng.random() < 0.3 or feeder_150
        nav = rng.uniform(3e8, 2.5e10)
        five_decimals = rng.random() < 0.3
        if profile == "feeder":
            lines_by_quarter = self.feeder_quarters(rng, feeder_150)
        else:
            lines_by_quarter = self.drifting_quarters(rng, profile, with_nav_line)
        out: dict[str, list[dict]] = {}
        for period, lines in zip(reversed(self.periods), lines_by_quarter):
            end = quarter_end(period)
            stamp = _stamp(rng, end + timedelta(days=rng.randint(18, 55)))
            as_of = end.isoformat()
            nav *= math.exp(rng.gauss(0.01, 0.08))
            rows = []
            for (asset_id, code, isin, issuer), pct in lines:
                value = nav * pct / 100.0
                rows.append({
                    "last_upd_date": stamp, "as_of_date": as_of, "assetliab_id": asset_id, "issue_code": code,
                    "isin_code": isin, "issuer": issuer,
                    "assetliab_value": f"{value:.5f}" if five_decimals else f"{value:.2f}",
                    "percent_nav": f"{pct:.5f}",
                })
            if with_nav_line:
                rows.append({
                    "last_upd_date": stamp, "as_of_date": as_of, "assetliab_id": ASSET_NAV_TOTAL, "issue_code": "-",
                    "isin_code": "-", "issuer": "-", "assetliab_value": f"{nav:.2f}",
                    "percent_nav": rng.choice(("100.00000", "100.00000", "99.99999", "100.00001")),
                })
            out[period] = rows
        return dict(sorted(out.items(), reverse=True))

    def drifting_quarters(self, rng: random.Random, profile: str, with_nav_line: bool) -> list[list]:
        low, high, categories, deposit_scale = PORTFOLIO_PROFILES[profile]
        high -= 1 if with_nav_line else 0
        universe: list[tuple[tuple, float]] = []
        for category, scale in categories:
            pool = self.securities[category]
            take = min(len(pool), max(high, 20))
            universe += [(sec, scale) for sec in rng.sample(pool, take)]
        rng.shuffle(universe)
        deposits = rng.sample(self.securities["deposit"], rng.randint(1, 3))
        target = min(high, low + int(rng.expovariate(1 / max((high - low) / 3, 1))))
        held: dict[tuple, float] = {}
        spare = list(universe)

        def enter() -> None:
            sec, scale = spare.pop(rng.randrange(len(spare)))
            held[sec] = scale * rng.lognormvariate(0, 0.9)

        quarters = []
        for q in range(len(self.periods)):
            if q:
                for sec in held:
                    held[sec] *= math.exp(rng.gauss(0, 0.15))
                target = max(low, min(high, target + rng.randint(-3, 3)))
                for sec in [s for s in held if rng.random() < 0.08]:
                    del held[sec]
                    spare.append((sec, 1.0))
            while len(held) + len(deposits) < target and spare:
                enter()
            total = rng.uniform(99.6, 100.15)
            cash = rng.uniform(0.3, 100 * deposit_scale)
            invested = sum(held.values())
            lines = [(sec, (total - cash) * w / invested) for sec, w in sorted(held.items(), key=lambda kv: (kv[0][0], -kv[1]))]
            split = [rng.uniform(0.2, 1.0) for _ in deposits]
            lines += [(dep, cash * s / sum(split)) for dep, s in zip(deposits, split)]
            quarters.append(lines)
        return quarters

    def feeder_quarters(self, rng: random.Random, feeder_150: bool) -> list[list]:
        """A feeder fund: one master fund, currency forwards and cash.

        The one 150-percent feeder lists its forwards at notional value, which is what the real
        data has been seen to do; the others list their fair value.
        """
        master = rng.choice(self.securities["master_fund"])
        deposits = rng.sample(self.securities["deposit"], 2)
        banks = [d[3] for d in self.securities["deposit"][::2]]
        quarters = []
        for period in reversed(self.periods):
            end = quarter_end(period)
            count = rng.randint(11, 16)  # with the master fund and cash: at least 15 lines
            forwards = [
                ((ASSET_FORWARD, f"FWD-USD-{(end + timedelta(days=30 * (k + 1))):%y%m%d}-{k + 1}", "-", rng.choice(banks)),
                 rng.uniform(3.5, 6.5) if feeder_150 else rng.uniform(0.01, 0.4))
                for k in range(count)
            ]
            if feeder_150:
                scale = rng.uniform(47, 53) / sum(p for _, p in forwards)
                forwards = [(sec, p * scale) for sec, p in forwards]
            base_total = rng.uniform(99.6, 100.15) - (0 if feeder_150 else sum(p for _, p in forwards))
            cash = rng.uniform(0.8, 3.0)
            other = rng.uniform(0.01, 0.3)
            lines = [(master, base_total - cash - other)] + forwards
            lines += [(deposits[0], cash * 0.7), (deposits[1], cash * 0.3)]
            lines.append(((ASSET_OTHER, "-", "-", "-"), other))
            quarters.append(lines)
        return quarters

    # ---- no-data answers --------------------------------------------------------------------------

    def choose_empty_200(self, plans: list[_FundPlan]) -> None:
        """A few no-data cases that answer 200 with an empty body instead of 204."""
        out = self.out
        rng = self.sub_rng("empty200")
        candidates = {
            "E4": [p.proj_id for p in plans if p.proj_id not in out["classes"] and p.status == "RG"],
            "E6": [p.proj_id for p in plans if p.proj_id not in out["holdings"] and p.status == "RG"],
            "E9": [p.proj_id for p in plans if p.proj_id not in out["return_estimate"] and p.status == "RG"],
            "E10": [p.proj_id for p in plans if p.proj_id not in out["performance"] and p.status == "LI"],
            "E12": [p.proj_id for p in plans if p.proj_id not in out["fees"] and p.status == "EX"],
        }
        for endpoint_id, ids in candidates.items():
            if ids:
                out["empty_200"].add((rng.choice(ids), endpoint_id))

    # ---- licence side -----------------------------------------------------------------------------

    def build_licence_side(self) -> None:
        rng = self.sub_rng("licence")
        today = self.today
        out = self.out
        licensees = [
            {"last_upd_date": _stamp(rng, today - timedelta(days=rng.randint(5, 700))), "unique_id": a["unique_id"],
             "name_th": a["name_th"], "name_en": a["name_en"]}
            for a in out["amcs"]
        ]
        combos = [(place, kind) for place in PLACES_TH for kind in LICENSEE_TYPES]
        for n, ((en, th), (tmpl_th, tmpl_en)) in enumerate(rng.sample(combos, 40 - len(licensees))):
            licensees.append({
                "last_upd_date": _stamp(rng, today - timedelta(days=rng.randint(5, 900))),
                "unique_id": f"C{201 + n:010d}", "name_th": tmpl_th.format(p=th), "name_en": tmpl_en.format(p=en),
            })
        out["licensees"] = licensees
        for n, (en, th) in enumerate(FORMER_PLACES):
            tmpl_th, tmpl_en = LICENSEE_TYPES[n % 4]
            out["former_licensees"].append({
                "last_upd_date": _stamp(rng, date(rng.randint(2012, 2023), rng.randint(1, 12), rng.randint(1, 28))),
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
            out["approvals"][pid] = self.approval_records(rng, n)
            duties = self.duty_records(rng, pid, company, licensees, n)
            if duties:
                out["duties"][pid] = duties
        without_duties = [p["unique_id"] for p in out["persons"] if p["unique_id"] not in out["duties"]]
        out["empty_200"].add((without_duties[0], "E18"))
        self.enforcement_cases(rng)
        self.alert_cases(rng)

    def approval_records(self, rng: random.Random, n: int) -> list[dict]:
        today = self.today
        records = []
        for code, numbered, lifelong, privilege in rng.sample(LICENCE_CODES, rng.randint(1, 4)):
            effective = today - timedelta(days=rng.randint(100, 6000))
            if lifelong:
                expire = ""
            else:
                expire = (effective + timedelta(days=rng.choice((730, 1095, 1825)))).isoformat()
            records.append({
                "last_upd_date": _stamp(rng, effective + timedelta(days=rng.randint(0, 30))),
                "regis_sale_no": f"{rng.randint(1, 99999):05d}" if numbered else _blank(rng),
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
                "last_upd_date": _stamp(rng, self.today - timedelta(days=rng.randint(1, 900))),
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
                "last_upd_date": _stamp(rng, day + timedelta(days=rng.randint(1, 20))),
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
                "last_upd_date": _stamp(rng, day),
                "case_id": case_id,
                "seq_no": str(rng.randint(1, 3)),
                "license_th": f"{entity} (บุคคลสมมติ) {act_th}",
                "license_en": f"{entity} (fictional): {act_en}",
            }

    # ---- successor layout only --------------------------------------------------------------------

    def build_successor_side(self, plans: list[_FundPlan]) -> None:
        """What only the successor layout publishes. Every draw comes from streams named "successor…",
        so adding or changing this never changes a legacy record."""
        out = self.out
        rng = self.sub_rng("successor")
        spaced = set(rng.sample(range(len(out["amcs"])), min(3, len(out["amcs"]))))
        for i, amc in enumerate(out["amcs"]):
            out["successor_amcs"].append({
                "unique_id": amc["unique_id"],
                "comp_name_en": amc["name_en"] + (" " if i in spaced else ""),  # seen live: a trailing space
                "comp_name_th": amc["name_th"],
                "last_upd_date": _successor_stamp(rng, self.today - timedelta(days=rng.randint(1, 30))),
            })
        holders = sorted(p.proj_id for p in plans if p.proj_id in out["holdings"])
        code_spelling = set(rng.sample(holders, min(2, len(holders))))
        factsheet_kinds = ("investment", "suitability", "performance", "redemption", "fees", "allocation")
        with_factsheet = [p.proj_id for p in plans if any(p.proj_id in out[k] for k in factsheet_kinds)]
        older = set(rng.sample(with_factsheet, min(len(with_factsheet), max(3, len(with_factsheet) // 3))))
        esg = [p for p in plans if p.kind.code == "TESG"]
        if len(esg) < 2:  # "a few" Thai ESG classes in every data set
            spare = [p for p in plans if p.status == "RG" and not p.class_suffixes and p.kind.code in ("EQ", "DIV")]
            esg += spare[: 2 - len(esg)]
        esg_ids = {p.proj_id for p in esg}
        for plan in plans:
            out["fund_details"][plan.proj_id] = self.fund_details(
                plan, plan.proj_id in code_spelling, plan.proj_id in older, plan.proj_id in esg_ids)
        self.successor_licences()
        self.successor_alerts()

    def fund_details(self, plan: _FundPlan, code_spelling: bool, older: bool, esg: bool) -> dict:
        rng = self.sub_rng("successor", plan.proj_id)
        today, kind, code = self.today, plan.kind, plan.kind.code
        fund = next(f for f in self.out["funds"] if f["proj_id"] == plan.proj_id)
        flag = fund.get("invest_country_flage", fund.get("invest_country_flag"))
        if plan.regis:
            init = plan.regis - timedelta(days=rng.randint(7, 45))
        else:
            year = int(plan.proj_id[-4:]) - BE_OFFSET
            init = min(date(year, rng.randint(1, 12), rng.randint(1, 28)), today - timedelta(days=5))
        master = country = None
        if code == "GF":
            rows = next(iter(self.out["holdings"].get(plan.proj_id, {}).values()), [])
            funds = [r for r in rows if r["assetliab_id"] == ASSET_FOREIGN_FUND]
            if funds:
                top = max(funds, key=lambda r: float(r["percent_nav"]))
                master, country = top["issuer"], COUNTRY_TH.get(top["isin_code"][:2], "ลักเซมเบิร์ก")
            else:
                master, country = f"Demo {rng.choice(MASTER_FUNDS)} Master Fund I-Acc USD", "ลักเซมเบิร์ก"
        elif code == "GOLD":
            master, country = "Demo World Gold Trust", COUNTRY_TH["US"]
        asset = ALLOCATION_ASSETS[kind.theme][0]
        policy_html = (
            f"<p>กองทุนมีนโยบายลงทุนใน{asset}&nbsp;โดยเฉลี่ยในรอบปีบัญชีไม่น้อยกว่า 80% ของมูลค่าทรัพย์สินสุทธิ</p>\r\n"
            f"<p>ส่วนที่เหลืออาจลงทุนในเงินฝากและตราสารตลาดเงิน</p>\r\n<p>(ข้อมูลสมมติเพื่อการสาธิต / demo data)</p>"
        )
        styles = MANAGEMENT_STYLES.get(code, ("AM",))
        classes = {}
        for n, name in enumerate(plan.class_names or ["main"]):
            suffix = name.rsplit("-", 1)[-1] if plan.class_suffixes else ""
            if suffix == "SSF" or (not plan.class_suffixes and code == "SSF"):
                tax = TAX_SSF
            elif not plan.class_suffixes and esg:
                tax = TAX_THAI_ESG
            else:
                tax = ""
            body = f"{plan.proj_id[1:5]}{'ABCDEFGH'[n]}{plan.proj_id[-3:]}0"
            classes[name] = {
                "fund_class_tax_incentive_type": tax,
                "fund_class_isin_code": _isin("TH", body) if rng.random() < 0.85 else None,
            }
        if plan.status == "SE":
            start, prospectus = today - timedelta(days=rng.randint(3, 20)), "IPO"
        elif plan.is_old:
            start, prospectus = plan.cancel or date(2021, 12, 31), "Monthly"
        else:
            start = _month_end_before(today)
            prospectus = "SignificantFactsheet" if rng.random() < 0.15 else "Monthly"
        factsheet = {
            "start_date": start.isoformat(), "end_date": None, "prospectus_type": prospectus,
            "last_upd_date": _successor_stamp(rng, min(start + timedelta(days=rng.randint(1, 12)), today)),
        }
        previous = None
        if older:
            older_start = _month_end_before(start)
            previous = {
                "start_date": older_start.isoformat(), "end_date": (start - timedelta(days=1)).isoformat(),
                "prospectus_type": "Monthly",
                "last_upd_date": _successor_stamp(rng, older_start + timedelta(days=rng.randint(1, 12))),
                "drift_seed": rng.randrange(1_000_000),
            }
        url_dates = [start, _month_end_before(start)]
        if rng.random() < 0.5:
            url_dates.append(_month_end_before(url_dates[-1]))
        return {
            "init_date": init.isoformat(),
            "policy_desc": POLICY_DESC[kind.theme],
            "investment_policy_desc": None if plan.is_old and rng.random() < 0.4 else policy_html,
            "management_style": None if plan.is_old and rng.random() < 0.4 else rng.choice(styles),
            "feederfund_master_fund": master,
            "feederfund_country": country,
            "exchange_rate_protection_policy": rng.choice(FX_POLICIES) if flag in ("1", "2", "4") else rng.choice((None, "")),
            "last_upd_date": _successor_stamp(rng, min(init + timedelta(days=rng.randint(30, 4000)), today)),
            "classes": classes,
            "factsheet": factsheet,
            "older_factsheet": previous,
            "url_dates": [d.isoformat() for d in url_dates],
            "holdings_keys": ("assetliab_code", "market_value") if code_spelling else ("assetliab_id", "assetliab_value"),
            "performance_as_numbers": rng.random() < 0.5,
        }

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


def _successor_stamp(rng: random.Random, day: date) -> str:
    """A successor `last_upd_date`: mostly no zone with 0 to 3 fractional digits, sometimes `Z` and no fraction."""
    if rng.random() < 0.3:
        return f"{day.isoformat()}T{rng.randrange(24):02d}:{rng.randrange(60):02d}:{rng.randrange(60):02d}Z"
    return _stamp(rng, day)
