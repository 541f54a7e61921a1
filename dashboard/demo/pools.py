"""The text pools and codes the demo data is drawn from: invented names, kinds of fund, fees, licences, cases."""

from __future__ import annotations

from dataclasses import dataclass

from dashboard.records.labels import FUND_STATUS_SENT, PERFORMANCE_KIND, TAX_INCENTIVE_TEXT, fee_type_text

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
# The market-scale data set's 22 companies: the nine above, then these.
MARKET_AMC_STEMS = AMC_STEMS + (
    ("DCM", "Chiang Mai", "เชียงใหม่"),
    ("DAY", "Ayutthaya", "อยุธยา"),
    ("DKN", "Khon Kaen", "ขอนแก่น"),
    ("DHY", "Hat Yai", "หาดใหญ่"),
    ("DPB", "Phetchaburi", "เพชรบุรี"),
    ("DUB", "Ubon", "อุบล"),
    ("DKC", "Kanchanaburi", "กาญจนบุรี"),
    ("DNS", "Nakhon Sawan", "นครสวรรค์"),
    ("DPL", "Phitsanulok", "พิษณุโลก"),
    ("DSB", "Samui", "สมุย"),
    ("DRB", "Ratchaburi", "ราชบุรี"),
    ("DBS", "Bang Saen", "บางแสน"),
    ("DPY", "Phayao", "พะเยา"),
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
# The market-scale data set: fund projects and unit classes (a fund without classes counts as one),
# the status mix, and how often each kind of fund occurs among the open ones.
MARKET_FUNDS = 2100
MARKET_CLASSES = 4700
MARKET_STATUSES = (("RG", 80), ("SE", 2), ("LI", 9), ("CA", 4), ("EX", 5))
MARKET_KIND_WEIGHTS = (("EQ", 14), ("DIV", 6), ("FI", 12), ("BC", 5), ("MM", 5), ("MIX", 10), ("GEQ", 14),
                       ("GF", 8), ("SSF", 5), ("RMF", 7), ("TESG", 4), ("FT", 12), ("TRIG", 2), ("GOLD", 2), ("CX", 2))
MARKET_MULTI_KINDS = ("EQ", "DIV", "FI", "BC", "MM", "MIX", "GEQ", "GF", "SSF", "RMF", "TESG")
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
# The service's spellings come from the table the product reads (records/labels.py SPELLINGS).
PERF_FUND = PERFORMANCE_KIND["fund_return"][0]
PERF_BENCH = PERFORMANCE_KIND["benchmark_return"][0]
PERF_FUND_VOL = PERFORMANCE_KIND["fund_volatility"][0]
PERF_BENCH_VOL = PERFORMANCE_KIND["benchmark_volatility"][0]
PERF_PEER = PERFORMANCE_KIND["peer_average"][0]
PERFORMANCE_TYPES = (PERF_FUND, PERF_BENCH, PERF_FUND_VOL, PERF_BENCH_VOL, PERF_PEER)
# theme -> (mean return, volatility), percent a year
RETURN_PROFILES = {
    "equity": (4.0, 14.0), "bond": (2.2, 2.0), "money": (1.6, 0.3), "mixed": (3.5, 8.0),
    "foreign": (7.0, 16.0), "term": (2.5, 1.5), "gold": (8.0, 13.0), "complex": (3.0, 10.0),
}

FEE_FRONT = fee_type_text("front_end")
FEE_BACK = fee_type_text("back_end")
FEE_SWITCH_IN = fee_type_text("switching_in")
FEE_SWITCH_OUT = fee_type_text("switching_out")
FEE_MGMT = fee_type_text("management")
FEE_TRUSTEE = fee_type_text("trustee")
FEE_REGISTRAR = fee_type_text("registrar")
FEE_TOTAL = fee_type_text("total")
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

SUCCESSOR_STATUS = FUND_STATUS_SENT
TAX_SSF = TAX_INCENTIVE_TEXT["SSF"]
TAX_THAI_ESG = TAX_INCENTIVE_TEXT["ThaiESG"]
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
