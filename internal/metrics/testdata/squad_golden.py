"""Generates squad_golden.json: expected SQuAD v2.0 normalisation and scores.

Run once by hand (python3 squad_golden.py > squad_golden.json, or with the
argument "random" > squad_random_golden.json for 400 seeded random strings
over a tricky alphabet); the Go tests
read the JSON and never call Python. normalize_answer, get_tokens,
compute_exact and compute_f1 are copied verbatim from the official SQuAD v2.0
evaluation script (evaluate-v2.0.py); the gold filtering in score() is the
script's get_raw_scores.
"""
import collections
import json
import re
import string


def normalize_answer(s):
  """Lower text and remove punctuation, articles and extra whitespace."""
  def remove_articles(text):
    regex = re.compile(r'\b(a|an|the)\b', re.UNICODE)
    return re.sub(regex, ' ', text)
  def white_space_fix(text):
    return ' '.join(text.split())
  def remove_punc(text):
    exclude = set(string.punctuation)
    return ''.join(ch for ch in text if ch not in exclude)
  def lower(text):
    return text.lower()
  return white_space_fix(remove_articles(remove_punc(lower(s))))


def get_tokens(s):
  if not s: return []
  return normalize_answer(s).split()


def compute_exact(a_gold, a_pred):
  return int(normalize_answer(a_gold) == normalize_answer(a_pred))


def compute_f1(a_gold, a_pred):
  gold_toks = get_tokens(a_gold)
  pred_toks = get_tokens(a_pred)
  common = collections.Counter(gold_toks) & collections.Counter(pred_toks)
  num_same = sum(common.values())
  if len(gold_toks) == 0 or len(pred_toks) == 0:
    # If either is no-answer, then F1 is 1 if they agree, 0 otherwise
    return int(gold_toks == pred_toks)
  if num_same == 0:
    return 0
  precision = 1.0 * num_same / len(pred_toks)
  recall = 1.0 * num_same / len(gold_toks)
  f1 = (2 * precision * recall) / (precision + recall)
  return f1


def score(pred, golds):
  gold_answers = [a for a in golds if normalize_answer(a)]
  if not gold_answers:
    gold_answers = ['']
  return (max(compute_exact(a, pred) for a in gold_answers),
          max(compute_f1(a, pred) for a in gold_answers))


CASES = [
  # (prediction, references, note)
  ("The Eiffel Tower", ["Eiffel Tower"], "leading article"),
  ("an apple a day", ["apple day"], "articles inside a phrase"),
  ("theory of anarchy", ["theory of anarchy"], "articles inside words are kept"),
  ("Atheist Thea", ["atheist thea"], "case and embedded article letters"),
  ("a\u00e9 the\u00e9 \u00e9a \u00e9the", ["x"], "accented letters glued to articles: not words"),
  ("caf\u00e9 the caf\u00e9", ["café"], "accented word next to an article"),
  ("l'a", ["la"], "apostrophe removed before article removal"),
  ("the_cat a_b", ["the_cat"], "underscore is removed, then articles"),
  ("a\u0301 the\u0301", ["x"], "combining mark after an article is not a word character"),
  ("a\u0663 \u0663the", ["x"], "Arabic-Indic digits are word characters"),
  ("\u00bda", ["x"], "vulgar fraction (No) is a word character"),
  ("A\u2014B \u2013 c", ["a\u2014b \u2013 c"], "Unicode dashes kept"),
  ("\u201cquoted\u201d \u2018single\u2019", ["quoted single"], "Unicode quotes kept"),
  ("\u00abguillemets\u00bb \u00bfqu\u00e9?", ["guillemets qu\u00e9"], "other Unicode punctuation kept"),
  ("x\x1cy\x1dz\x1ew\x1fv", ["x y z w v"], "\\x1c-\\x1f are whitespace"),
  ("x\u00a0y\u2009z\u3000w\u2028v\u0085u", ["x y z w v u"], "NBSP, thin space, ideographic space, line sep, NEL"),
  ("x\u200by\u180ez\ufeffw", ["xyzw"], "zero-width space, MVS, BOM are not whitespace"),
  ("  spaced \t\n out  ", ["spaced out"], "runs of ASCII whitespace"),
  ("\u0130stanbul", ["istanbul"], "dotted capital I lowercases to i + U+0307"),
  ("\u039f\u0394\u039f\u03a3 \u03a3\u039f\u03a6\u0399\u0391", ["\u03bf\u03b4\u03bf\u03c2 \u03c3\u03bf\u03c6\u03b9\u03b1"], "final sigma"),
  ("\u03a3", ["\u03c3"], "lone capital sigma is not final"),
  ("A\u03a3'", ["a\u03c2"], "final sigma before case-ignorable apostrophe"),
  ("STRASSE Stra\u00dfe", ["strasse stra\u00dfe"], "sharp s stays"),
  ("\u212a", ["k"], "Kelvin sign lowercases to k"),
  ("1,000 m.p.h.", ["1000 mph"], "ASCII punctuation removed"),
  ("U.S.A.", ["usa"], "dotted abbreviation"),
  ("a", ["the"], "both sides normalise to empty"),
  ("", ["the", "an"], "all references empty: treated as unanswerable"),
  ("something", ["", "a"], "unanswerable, non-empty prediction"),
  ("the", ["", "Paris"], "empty references dropped"),
  ("Paris France", ["London", "Paris", "Paris, France!"], "max over several references"),
  ("the the cat cat", ["cat"], "repeated tokens: precision 1/2"),
  ("cat dog", ["cat cat dog"], "multiset intersection"),
  ("red blue green", ["blue yellow"], "partial overlap"),
  ("", ["Paris"], "empty prediction against an answer"),
  ("\u00c9cole Normale", ["\u00e9cole normale"], "accented capitals lower"),
  ("THE\u00a0END", ["end"], "article then NBSP"),
  ("an", ["an"], "lone article"),
  ("a-b", ["ab"], "hyphen removed joins words"),
  ("a\u2010b", ["b"], "Unicode hyphen kept, so a is a word"),
  ("\ufb01ne", ["\ufb01ne"], "ligature fi unchanged by lower"),
  ("\u01c5", ["\u01c6"], "title-case digraph"),
  ("\u2160 \u2170", ["\u2170 \u2170"], "Roman numerals (Nl) lower"),
]

import random
import sys

if len(sys.argv) > 1 and sys.argv[1] == "random":
  rng = random.Random(20261130)
  pieces = ["a", "an", "the", "A", "An", "THE", "The", "x", "cat", "\u00e9", "\u00c9", "\u0301",
            "_", "'", "-", ".", ",", "!", "\u2014", "\u2019", "\u201c", " ", "  ", "\t", "\n",
            "\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\xa0", "\u2009", "\u3000", "\u2028",
            "\u200b", "\u0130", "\u03a3", "\u039f", "\u03c3", "1", "\u0663", "\u00bd", "\u01c5",
            "\u212a", "\u00df", "\u0627\u0644", "\u4e2d"]
  CASES = []
  for i in range(400):
    pred = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
    refs = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 8))) for _ in range(rng.randint(1, 3))]
    if rng.random() < 0.3:
      refs.append(pred.upper() if rng.random() < 0.5 else pred)
    CASES.append((pred, refs, "random %d" % i))

out = []
for pred, refs, note in CASES:
  em, f1 = score(pred, refs)
  out.append({
    "note": note,
    "prediction": pred,
    "references": refs,
    "normalized": normalize_answer(pred),
    "exact_match": em,
    "token_f1": f1,
  })
print(json.dumps(out, ensure_ascii=len(sys.argv) == 1, indent=None if len(sys.argv) > 1 else 1).replace("}, {", "},\n{"))
