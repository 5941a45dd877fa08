"""The shipped tokenizer gives the token ids of all-MiniLM-L6-v2's own tokenizer.json."""

import pytest

pytest.importorskip("tokenizers")

from aletheia_hub.embed.model import MAX_TOKENS
from aletheia_hub.embed.wordpiece import SPECIAL_TOKENS, VOCAB_FILE, load_tokenizer

# Texts and their ids from all-MiniLM-L6-v2's own tokenizer.json (which the hub loaded before
# it shipped the vocabulary), truncated to MAX_TOKENS.
EXPECTED_IDS = [
    ("Staging deploys need the VPN", "101 15308 21296 2015 2342 1996 21210 2078 102"),
    (
        "Priya fixed the flaky login test by freezing the clock",
        "101 26927 3148 4964 1996 13109 4817 2100 8833 2378 3231 2011 12809 1996 5119 102",
    ),
    (
        "Café résumé naïve façade: ÉCOLE, Ångström, Øresund",
        "101 7668 13746 15743 8508 1024 12431 1010 17076 15687 1010 1100 6072 8630 102",
    ),
    ("e\u0301te\u0301 with combining accents", "101 3802 2063 2007 11566 24947 102"),
    ("İstanbul straße ﬁle Ⅻ ①", "101 9960 2358 27807 1984 2571 100 100 102"),
    (
        "中文分词测试：你好，世界！",
        "101 1746 1861 1775 100 100 100 1993 100 100 1989 1745 100 1986 102",
    ),
    ("日本語のテキスト", "101 1864 1876 1950 1671 30239 30227 30233 30240 102"),
    (
        "한국어 텍스트",
        "101 1469 30006 30021 29991 30014 30020 29999 30008 1467 30009 30020 29997 30017 "
        "30003 30017 102",
    ),
    (
        "Привет, мир! Ёлка",
        "101 1194 16856 10325 25529 15290 22919 1010 1191 10325 16856 999 1185 29436 28598 102",
    ),
    ("emoji 😀🎉👍🏽 ❤️ and text", "101 7861 29147 2072 100 100 1998 3793 102"),
    (
        "zero\u200bwidth\xa0nbsp\u3000ideographic\ttab\r\nnewline",
        "101 5717 9148 11927 2232 1050 5910 2361 8909 8780 14773 21628 2047 4179 102",
    ),
    ("control\x00\x1b[31mred\x7f chars", "101 2491 1031 2861 2213 5596 25869 2015 102"),
    ("ｆｕｌｌｗｉｄｔｈ ＡＢＣ １２３", "101 100 100 100 102"),
    # Special tokens are matched in the raw text, case and all.
    ("[CLS] [SEP] [PAD] [MASK] [UNK] inline", "101 101 102 0 103 100 23881 102"),
    ("[cls] lower x[SEP]y", "101 1031 18856 2015 1033 2896 1060 102 1061 102"),
    (
        "def embed(texts: list[str]) -> NDArray:  # a comment",
        "101 13366 7861 8270 1006 6981 1024 2862 1031 2358 2099 1033 1007 1011 1028 1050 "
        "7662 9447 1024 1001 1037 7615 102",
    ),
    (
        "https://example.com/a?b=c&d=e#f user@example.com",
        "101 16770 1024 1013 1013 2742 1012 4012 1013 1037 1029 1038 1027 1039 1004 1040 "
        "1027 1041 1001 1042 5310 1030 2742 1012 4012 102",
    ),
    (
        "pnpm i && npm run build; don't use npm",
        "101 1052 16275 2213 1045 1004 1004 27937 2213 2448 3857 1025 2123 1005 1056 2224 "
        "27937 2213 102",
    ),
    (
        "1,000,000.50 $5 €10 £3",
        "101 1015 1010 2199 1010 2199 1012 2753 1002 1019 1574 10790 28182 102",
    ),
    ("", "101 102"),
    (" \n\t ", "101 102"),
]
# Ids a few tokens long, repeated: words past 100 characters, and the cut at MAX_TOKENS, which
# keeps [SEP] and falls inside a word where it must.
EXPECTED_REPEATS = [
    ("a" * 100, [101, 13360, *[11057] * 48, 2050, 102]),
    ("a" * 101, [101, 100, 102]),
    ("word " * 300, [101, *[2773] * 254, 102]),
    ("flaky " * 200, [101, *[13109, 4817, 2100] * 84, 13109, 4817, 102]),
]


@pytest.mark.parametrize(
    ("text", "ids"),
    [(text, [int(id_) for id_ in ids.split()]) for text, ids in EXPECTED_IDS] + EXPECTED_REPEATS,
)
def test_the_tokenizer_gives_the_ids_of_the_models_tokenizer_json(
    text: str, ids: list[int]
) -> None:
    encoding = load_tokenizer(MAX_TOKENS).encode(text)
    assert encoding.ids == ids
    assert encoding.attention_mask == [1] * len(ids)  # unpadded
    assert encoding.type_ids == [0] * len(ids)


def test_the_vocabulary_is_bert_uncased_with_its_special_tokens() -> None:
    tokenizer = load_tokenizer(MAX_TOKENS)
    assert tokenizer.get_vocab_size() == 30522
    marks = {mark: tokenizer.token_to_id(mark) for mark in SPECIAL_TOKENS}
    assert marks == {"[PAD]": 0, "[UNK]": 100, "[CLS]": 101, "[SEP]": 102, "[MASK]": 103}
    assert (VOCAB_FILE.parent / "NOTICE").is_file()
