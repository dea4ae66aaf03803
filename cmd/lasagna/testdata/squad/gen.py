"""Writes the SQuAD-shaped fixtures of TestScoreSQuAD*: each case once, as
the official scripts read it (SQuAD JSON and a predictions dict) and as
lasagna reads it (benchmark JSONL and predictions JSONL).

    python3 gen.py OUTDIR

The SQuAD JSON files go to OUTDIR (run the official evaluate-v1.1.py and
evaluate-v2.0.py on them); the JSONL files are written beside this script.
"""
import json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))

# (id, question, gold answers ([] = unanswerable), prediction or None = missing, type)
V2 = [
    ("v2q01", "Who introduced the solidus?", ["Constantine the Great", "Constantine I"], "constantine the great", "who"),
    ("v2q02", "When was it introduced?", ["312 AD", "in roughly 312 AD"], "312", "when"),
    ("v2q03", "What metal was it?", ["gold"], "Gold.", "what"),
    ("v2q04", "What did it cost to mint?", [], "", "what"),
    ("v2q05", "Who melted them down?", [], "the Venetians", "who"),
    ("v2q06", "What replaced it?", ["the hyperpyron"], "a hyperpyron coin", "what"),
    ("v2q07", "Where was it minted?", ["Constantinople", "at Constantinople"], "in Constantinople, the capital", "where"),
    ("v2q08", "How much did it weigh?", ["4.5 grams", "about 4.5 g"], "4.5 g", "how"),
    ("v2q09", "Why was it debased?", [], "", "why"),
    ("v2q10", "When did debasement start?", ["the 11th century", "11th century"], "11th-century", "when"),
    ("v2q11", "Who wrote about it?", ["Procopius"], "Procopius of Caesarea", "who"),
    ("v2q12", "What was its Latin name?", ["solidus aureus"], "Solidus Aureus!", "what"),
    ("v2q13", "How long was it used?", ["seven centuries", "over 700 years"], "700 years", "how"),
    ("v2q14", "Which emperor reformed it?", [], "Alexios I", "which"),
    ("v2q15", "What was a third of it?", ["a tremissis", "the tremissis"], "tremissis", "what"),
    ("v2q16", "Where is one kept?", ["the British Museum"], "British Museum in London", "where"),
    ("v2q17", "Who counterfeited it?", [], "", "who"),
    ("v2q18", "What did the reverse show?", ["Victory", "a winged Victory"], "winged victory holding a wreath", "what"),
    ("v2q19", "How pure was it?", ["nearly pure gold", "24 carat"], "24 carats", "how"),
    ("v2q20", "When was it abolished?", ["1092"], "1092 AD", "when"),
    ("v2q21", "What is an 'aureus'?", ["an earlier gold coin", "a Roman gold coin"], "Roman gold coin", "what"),
    ("v2q22", "Who minted the last one?", [], "", "who"),
    ("v2q23", "What did the obverse show?", ["the emperor", "the emperor's bust"], "the bust of the emperor", "what"),
    ("v2q24", "How many per pound?", ["72"], "seventy-two", "how"),
]

# (id, question, gold answers, prediction or None = missing)
V1 = []
topics = ["Denver Broncos", "Santa Clara", "Levi's Stadium", "February 7, 2016", "Carolina Panthers",
          "24-10", "Peyton Manning", "Von Miller", "CBS", "Beyoncé", "Coldplay", "Bruno Mars", "gold"]
for i in range(60):
    t = topics[i % len(topics)]
    golds = [t, "the " + t, t + " team"][: 1 + i % 3]
    if i % 5 == 3:  # 12 missing
        pred = None
    elif i % 4 == 0:
        pred = t
    elif i % 4 == 1:
        pred = "The " + t.lower() + "!"
    elif i % 4 == 2:
        pred = t.split()[0] + " something else"
    else:
        pred = "unrelated answer"
    V1.append(("v1q%02d" % (i + 1), "Question %d about %s?" % (i + 1, t), golds, pred))
V1.append(("v1q61", "Question 61?", ["Super Bowl 50"], None))  # the 13th missing


def squad_json(version, cases):
    qas = [{"id": c[0], "question": c[1], "answers": [{"text": a, "answer_start": 0} for a in c[2]],
            **({"is_impossible": not c[2]} if version == "v2.0" else {})} for c in cases]
    return {"version": version, "data": [{"title": "fixture", "paragraphs": [{"context": "fixture", "qas": qas}]}]}


def main(out):
    os.makedirs(out, exist_ok=True)
    for version, cases, stem in (("v2.0", V2, "v2"), ("1.1", V1, "v1")):
        with open(os.path.join(out, stem + "-dev.json"), "w") as f:
            json.dump(squad_json(version, cases), f)
        with open(os.path.join(out, stem + "-pred.json"), "w") as f:
            json.dump({c[0]: c[3] for c in cases if c[3] is not None}, f)
        with open(os.path.join(HERE, stem + ".jsonl"), "w") as f:
            for c in cases:
                row = {"id": c[0], "question": c[1]}
                meta = {}
                if c[2]:
                    row["answers"] = c[2]
                else:
                    meta["unanswerable"] = True
                if len(c) > 4:
                    meta["question_type"] = c[4]
                if meta:
                    row["metadata"] = meta
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
        with open(os.path.join(HERE, stem + "-predictions.jsonl"), "w") as f:
            for c in cases:
                if c[3] is not None:
                    f.write(json.dumps({"id": c[0], "answer": c[3]}, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
