"""The licence register's enumerations with Thai and English labels: what an enforcement case's date,
details and remark mean by action type, the kinds of case, and a licence's action status."""

from __future__ import annotations

import re

Label = tuple[str, str]  # (Thai, English)

# The specification numbers enforcement action types differently in two fields: in
# enforcement_date 3 is an administrative action and 4 an administrative fine; in
# enforcement_details (and enforcement_remark) 3 is the fine and 4 the action. Each field follows
# its own list, so both are kept, verbatim from the specification.
ENFORCEMENT_DATE_MEANING: dict[int, Label] = {
    1: ("วันที่กล่าวโทษ", "date of complaint"),
    2: ("วันที่เปรียบเทียบปรับ", "date of compounding"),
    3: (
        "วันที่ดำเนินมาตรการทางการบริหาร (วันที่ในหนังสือลงโทษ)",
        "date of administrative action (the date on the penalty letter)",
    ),
    4: ("วันที่ลงโทษปรับทางปกครอง", "date of administrative fine"),
    5: ("วันที่ดำเนินมาตรการลงโทษทางแพ่ง", "date of civil action"),
}
ENFORCEMENT_DETAILS_MEANING: dict[int, Label] = {
    1: ("รายละเอียดการกล่าวโทษ", "complaint details"),
    2: (
        "รายละเอียดการเปรียบเทียบปรับ ในรูปแบบ 'คำสั่งเปรียบเทียบปรับที่ [เลขที่คำสั่ง] ปรับเป็นเงิน [จำนวน] บาท'",
        "compounding details in the form 'compounding order no. [order] with a fine of [amount] baht'",
    ),
    3: (
        "การลงโทษปรับทางปกครอง ในรูปแบบ '[เลขที่คำสั่ง] ปรับเป็นเงิน [จำนวน] บาท'",
        "administrative fine in the form '[order no.] with a fine of [amount] baht'",
    ),
    4: (
        "มาตรการทางการบริหาร เช่น การพักหรือเพิกถอนการให้ความเห็นชอบ หรือการภาคทัณฑ์",
        "administrative action such as suspension, revocation or reprimand",
    ),
    5: ("มาตรการลงโทษทางแพ่ง เช่น โทษอื่น ๆ", "civil action such as other penalties"),
}
ENFORCEMENT_REMARK_MEANING: dict[int, Label] = {
    1: ("หมายเหตุการกล่าวโทษ", "complaint remark"),
    2: ("หมายเหตุการเปรียบเทียบปรับ", "compounding remark"),
    3: ("หมายเหตุการลงโทษปรับทางปกครอง", "administrative fine remark"),
    4: (
        "หมายเหตุมาตรการทางการบริหาร ในรูปแบบ 'มีผลตั้งแต่ DD/MM/YYYY ถึง DD/MM/YYYY'",
        "administrative action remark of the form 'effective from DD/MM/YYYY to DD/MM/YYYY'",
    ),
    5: ("หมายเหตุมาตรการลงโทษทางแพ่ง", "civil action remark"),
}
ENFORCEMENT_TYPE: dict[str, Label] = {
    "complaint": ("กล่าวโทษ", "criminal complaint"),
    "compounding": ("เปรียบเทียบปรับ", "settlement by fine (compounding)"),
    "administrative_fine": ("ปรับทางปกครอง", "administrative fine"),
    "administrative_action": ("การดำเนินการทางบริหาร", "administrative action"),
    "civil_action": ("การดำเนินการทางแพ่ง", "civil action"),
}
ACTION_STATUS: dict[str, Label] = {
    "NORMAL": ("ปกติ", "active"),
    "HOLD": ("ระงับชั่วคราว", "on hold"),
}


def enforcement_type_key(text: object) -> str | None:
    """The kind of an enforcement case from its Thai (or English) type text."""
    if not isinstance(text, str):
        return None
    compact = re.sub(r"\s+", "", text).casefold()
    if not compact:
        return None
    if "เปรียบเทียบ" in compact or "compound" in compact:
        return "compounding"
    if "ปกครอง" in compact or "administrativefine" in compact:
        return "administrative_fine"
    if "บริหาร" in compact or "administrativeaction" in compact:
        return "administrative_action"
    if "แพ่ง" in compact or "civil" in compact:
        return "civil_action"
    if "กล่าวโทษ" in compact or "complaint" in compact:
        return "complaint"
    return None
