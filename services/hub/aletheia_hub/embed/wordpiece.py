"""The model's tokenizer: uncased BERT WordPiece over the vocabulary shipped with the hub."""

from pathlib import Path
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from tokenizers import Tokenizer

# bert-base-uncased's vocabulary as all-MiniLM-L6-v2 ships it (tokenizer/NOTICE).
VOCAB_FILE: Final = Path(__file__).with_name("tokenizer") / "vocab.txt"
SPECIAL_TOKENS: Final = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


def load_tokenizer(max_tokens: int) -> "Tokenizer":
    """The tokenizer of the model's tokenizer.json: [CLS] text [SEP], cut to max_tokens
    (both marks included), unpadded (batches are padded by hand to their own longest text)."""
    from tokenizers import Tokenizer
    from tokenizers.models import WordPiece
    from tokenizers.normalizers import BertNormalizer
    from tokenizers.pre_tokenizers import BertPreTokenizer
    from tokenizers.processors import TemplateProcessing

    tokenizer = Tokenizer(
        WordPiece.from_file(str(VOCAB_FILE), unk_token="[UNK]", max_input_chars_per_word=100)
    )
    # strip_accents=None: accents go with lowercasing, as in BERT uncased.
    tokenizer.normalizer = BertNormalizer(
        clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=True
    )
    tokenizer.pre_tokenizer = BertPreTokenizer()
    # Matched in the raw text before normalising, as tokenizer.json's added tokens are.
    tokenizer.add_special_tokens(list(SPECIAL_TOKENS))
    tokenizer.post_processor = TemplateProcessing(
        single="[CLS] $A [SEP]",
        special_tokens=[(mark, tokenizer.token_to_id(mark)) for mark in ("[CLS]", "[SEP]")],
    )
    tokenizer.enable_truncation(max_tokens)
    return tokenizer
