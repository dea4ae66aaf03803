#!/usr/bin/env python3
"""CACM as Anserini indexes and searches it, as a lasagna benchmark folder
(docs/retrieval.md, "CACM against Anserini"):

    python3 scripts/cacm.py cacm.tar.gz topics.cacm.txt qrels.cacm.txt OUT

The inputs are castorini/anserini-data's CACM/corpus/raw/cacm.tar.gz,
CACM/topics.cacm.txt and CACM/qrels.cacm.txt. OUT gets corpus.jsonl,
queries.jsonl and qrels/test.tsv:

- a document per HTML file of the archive, its id the file name without
  .html and its text the file's text without its markup (each file is
  <html><pre>text</pre></html>, and the only markup: the four tags are
  replaced by spaces, which gives Anserini's index statistics exactly:
  3,204 documents, 14,363 unique terms, 320,968 total terms);
- a query per topic of the 52 that have judgements, its text what
  Anserini's CacmTopicReader takes (the lines after <DOCNO> up to </DOC>);
- the judgements, one per line of the qrels file, except those naming a
  document the archive does not hold (55 name unpadded ids such as
  CACM-756, where the file is CACM-0756.html): a benchmark's qrels must
  name its documents. Score the run against the original qrels file with
  `lasagna metrics trec`, as Anserini does with trec_eval.
"""
import json
import os
import re
import sys
import tarfile

LINES = re.compile(r"\r\n|\r|\n")
TAGS = re.compile(r"</?(?:html|pre)>")


def java_lines(text):
    """The lines Java's BufferedReader.readLine gives for text."""
    lines = LINES.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def topics(path):
    """CacmTopicReader: qid → text."""
    with open(path, encoding="utf-8") as f:
        lines = java_lines(f.read())
    out, i = {}, 0
    while i < len(lines):
        line = lines[i].strip()
        i += 1
        if not line.startswith("<DOC>"):
            continue
        qid = None
        while i < len(lines):
            line = lines[i]
            i += 1
            if line.startswith("<DOCNO>"):
                m = re.search(r"<DOCNO>\s*(.*?)\s*</DOCNO>", line)
                qid = str(int(m.group(1)))
                break
        text = []
        while i < len(lines):
            line = lines[i]
            i += 1
            if line.startswith("</DOC>"):
                out[qid] = "".join(l + "\n" for l in text)
                break
            text.append(line)
    return out


def main():
    corpus, topics_path, qrels_path, out = sys.argv[1:5]
    os.makedirs(os.path.join(out, "qrels"), exist_ok=True)
    judged = {}
    with open(qrels_path, encoding="utf-8") as f:
        for line in f:
            qid, _, doc, grade = line.split()
            judged.setdefault(qid, []).append((doc, grade))
    docs = set()
    with tarfile.open(corpus) as tar, open(os.path.join(out, "corpus.jsonl"), "w", encoding="utf-8") as f:
        for m in tar:
            if not m.isfile():
                continue
            text = tar.extractfile(m).read().decode("utf-8", errors="replace")
            doc = re.sub(r"\.html$", "", os.path.basename(m.name))
            text = TAGS.sub(" ", "".join(l + "\n" for l in java_lines(text)))
            f.write(json.dumps({"_id": doc, "text": text}) + "\n")
            docs.add(doc)
    dropped = 0
    with open(os.path.join(out, "qrels", "test.tsv"), "w", encoding="utf-8") as f:
        f.write("query-id\tcorpus-id\tscore\n")
        for qid in sorted(judged, key=int):
            for doc, grade in judged[qid]:
                if doc not in docs:
                    dropped += 1
                    continue
                f.write(f"{qid}\t{doc}\t{grade}\n")
    qs = topics(topics_path)
    with open(os.path.join(out, "queries.jsonl"), "w", encoding="utf-8") as f:
        for qid in sorted(judged, key=int):
            f.write(json.dumps({"_id": qid, "text": qs[qid]}) + "\n")
    print(f"{out}: {len(docs)} documents, {len(judged)} judged queries, "
          f"{dropped} judgements of documents not in the archive left out", file=sys.stderr)


if __name__ == "__main__":
    main()
