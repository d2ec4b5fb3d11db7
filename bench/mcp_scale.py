"""A vault at scale as an agent meets it: `ragdownd stdio` on a vault that `ragdown-bench vault`
wrote, driven over MCP stdio by the official MCP Python SDK. Measures the first index (from the
server's start to the first `ragdown_reindex` answering), the vector index's build after it (from
that answer to the server logging "vector index built", when the vault is past the threshold), a
no-op re-sync, `ragdown_recall` (top_k 8) and `ragdown_context` on the vault's queries,
`ragdown_list`, an agent's edit (`ragdown_write` of a new note, then a recall of its one word:
the time of each and whether the note came first), `ragdown_backlinks` (the first, then 20
documents spread over the vault), the server's peak RSS
and its RSS after, the data dir's size on disk, and a restart on the existing index (from the
process's start to its first recall answering). Prints one JSON object.

    python bench/mcp_scale.py --ragdownd target/release/ragdownd --vault DIR [--embedder hash]

Run by bench/scale.sh. The vault is indexed in place: the edit writes `bench-edit/*.md` into it and
removes it again.
"""

import argparse
import asyncio
import json
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from mcp_latency import percentile, rss_mb, server_pid, timed


def summary(values: list[float]) -> dict:
    return {"p50": percentile(values, 50), "p95": percentile(values, 95), "p99": percentile(values, 99),
            "max": round(max(values), 2), "mean": round(statistics.fmean(values), 2), "n": len(values)}


def du_mb(path: Path) -> float:
    out = subprocess.run(["du", "-sb", str(path)], capture_output=True, text=True, check=True).stdout
    return round(int(out.split()[0]) / 1e6, 1)


async def wait_for_line(log: Path, needle: str, timeout_s: float) -> float | None:
    """Seconds until `needle` appears in `log`, or None after `timeout_s`."""
    started = time.perf_counter()
    while time.perf_counter() - started < timeout_s:
        if needle in log.read_text(errors="replace"):
            return time.perf_counter() - started
        await asyncio.sleep(0.2)
    return None


def sync_stages(log: Path, after: int) -> dict:
    """The median of each stage (ms) of the syncs the server logged past line `after`."""
    stages: dict[str, list[int]] = {}
    for line in log.read_text(errors="replace").splitlines()[after:]:
        if "sync done" not in line or "Stages {" not in line:
            continue
        inside = line.split("Stages {", 1)[1].split("}", 1)[0]
        for name, value in re.findall(r"(\w+): (\d+)", inside):
            stages.setdefault(name, []).append(int(value))
    return {name: statistics.median(values) for name, values in stages.items()}


async def run(cli: argparse.Namespace) -> dict:
    vault = Path(cli.vault)
    queries = [q["query"] for q in json.loads((vault / "queries.json").read_text())][: cli.queries]
    edit_dir = vault / "bench-edit"
    shutil.rmtree(edit_dir, ignore_errors=True)
    out: dict = {"workload": "mcp-scale", "embedder": cli.embedder, "vault": str(vault),
                 "vault_manifest": json.loads((vault / "vault.json").read_text()),
                 "vector_index_rows": cli.vector_index_rows}
    out["vault_manifest"].pop("sources", None)
    with tempfile.TemporaryDirectory(dir=cli.work) as work:
        data = Path(work) / "data"
        log = Path(work) / "server.log"
        env = dict(os.environ)
        env.update(RAGDOWN_EMBEDDER=cli.embedder, RAGDOWN_DATA_DIR=str(data), RAGDOWN_WATCH="false",
                   RAGDOWN_LOG="warn,ragdownd::index::ann=info,ragdownd::index::sync=info")
        if cli.vector_index_rows:
            env["RAGDOWN_VECTOR_INDEX_ROWS"] = cli.vector_index_rows
        params = StdioServerParameters(command=cli.ragdownd, args=["stdio", "--docs", str(vault)], env=env)
        with open(log, "w") as errlog:
            started = time.perf_counter()
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    pid = server_pid(Path(cli.ragdownd).name)
                    _, first = await timed(session, "ragdown_reindex", {})
                    out["first_index_s"] = round(time.perf_counter() - started, 1)
                    out["first_sync"] = json.loads(first) if first.startswith("{") else first
                    out["peak_rss_first_index_mb"] = rss_mb(pid, "VmHWM")
                    stats = json.loads((await timed(session, "ragdown_stats", {}))[1])
                    out["chunks"], out["files"] = stats.get("chunks"), stats.get("files")
                    rows = cli.vector_index_rows or "200000"
                    threshold = float("inf") if rows == "off" else int(rows)
                    out["vector_index_build_s"] = None
                    if (out["chunks"] or 0) >= threshold:
                        built = await wait_for_line(log, "vector index built", cli.build_timeout)
                        out["vector_index_build_s"] = round(built, 1) if built is not None else "timed out"
                        out["peak_rss_index_build_mb"] = rss_mb(pid, "VmHWM")
                    noop = []
                    logged = len(log.read_text(errors="replace").splitlines())
                    for _ in range(3):
                        noop.append((await timed(session, "ragdown_reindex", {}))[0])
                    out["noop_resync_ms"] = round(statistics.median(noop), 1)
                    out["noop_resync_stages_ms"] = sync_stages(log, logged)
                    for query in queries[:20]:  # warm-up: the first queries read index files
                        await timed(session, "ragdown_recall", {"query": query, "top_k": 8})
                    recall, context = [], []
                    for query in queries:
                        recall.append((await timed(session, "ragdown_recall", {"query": query, "top_k": 8}))[0])
                    for query in queries[:100]:
                        context.append((await timed(session, "ragdown_context", {"prompt": query}))[0])
                    out["recall_ms"], out["context_ms"] = summary(recall), summary(context)
                    # Filtered: a tenth of the generated folders (about 9% of the vault at every size),
                    # and one of the generated notes' tags.
                    prefixed = [(await timed(session, "ragdown_recall",
                                             {"query": q, "top_k": 8, "path_prefix": "gen/area-00"}))[0]
                                for q in queries[:100]]
                    tagged = [(await timed(session, "ragdown_recall", {"query": q, "top_k": 8, "tag": cli.tag}))[0]
                              for q in queries[:100]]
                    out["recall_prefix_ms"], out["recall_tag_ms"] = summary(prefixed), summary(tagged)
                    listing = [(await timed(session, "ragdown_list", {}))[0] for _ in range(3)]
                    every = sorted((vault / "gen").rglob("*.md")) or sorted(vault.rglob("*.md"))
                    targets = [str(p.relative_to(vault)) for p in every[:: max(1, len(every) // 20)][:20]]
                    out["list_ms"] = summary(listing)
                    writes, finds, first_hits = [], [], 0
                    for i in range(cli.edits):
                        word = f"zqedit{i:03d}marker"
                        path = f"bench-edit/note-{i}.md"
                        writes.append((await timed(session, "ragdown_write",
                                                   {"path": path, "text": f"# Edit {i}\n\nThe {word} is here.\n"}))[0])
                        took, text = await timed(session, "ragdown_recall", {"query": word, "top_k": 1, "format": "json"})
                        finds.append(took)
                        hits = json.loads(text).get("hits", [])
                        first_hits += bool(hits) and hits[0]["path"] == path
                    out["edit_write_ms"], out["edit_recall_ms"] = summary(writes), summary(finds)
                    out["edits_found_first"] = f"{first_hits}/{cli.edits}"
                    out["peak_rss_mb"], out["rss_after_mb"] = rss_mb(pid, "VmHWM"), rss_mb(pid, "VmRSS")
                    # Last, and given up after a minute (a server still at it is stopped with the
                    # session): the first one brings the link graph up to date with the edits, the
                    # rest ask about 20 documents spread over the vault.
                    try:
                        took, _ = await asyncio.wait_for(timed(session, "ragdown_backlinks", {"path": targets[0]}), 60)
                        out["backlinks_first_ms"] = round(took, 1)
                        links = [(await asyncio.wait_for(timed(session, "ragdown_backlinks", {"path": t}), 60))[0]
                                 for t in targets]
                        out["backlinks_ms"] = summary(links)
                    except TimeoutError:
                        out["backlinks_ms"] = "over 60 s"
                    out["rss_after_backlinks_mb"] = rss_mb(pid, "VmRSS")
            out["data_dir_mb"] = du_mb(data)
            shutil.rmtree(edit_dir, ignore_errors=True)
            started = time.perf_counter()
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    await timed(session, "ragdown_recall", {"query": queries[0], "top_k": 8})
                    out["restart_to_first_answer_s"] = round(time.perf_counter() - started, 2)
                    pid = server_pid(Path(cli.ragdownd).name)
                    restart = [(await timed(session, "ragdown_recall", {"query": q, "top_k": 8}))[0] for q in queries[:100]]
                    out["restart_recall_ms"] = summary(restart)
                    out["restart_rss_mb"] = rss_mb(pid, "VmRSS")
                    await timed(session, "ragdown_reindex", {})  # forgets the removed edits
        out["log_tail"] = log.read_text(errors="replace").splitlines()[-5:]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ragdownd", required=True)
    parser.add_argument("--vault", required=True)
    parser.add_argument("--embedder", default="hash")
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--tag", default="performance", help="a tag for the filtered recall")
    parser.add_argument("--vector-index-rows", help="RAGDOWN_VECTOR_INDEX_ROWS (default: the server's)")
    parser.add_argument("--build-timeout", type=float, default=1800, help="seconds to wait for the vector index")
    parser.add_argument("--work", help="where the data dir goes (default: the system's temp dir)")
    cli = parser.parse_args()
    print(json.dumps(asyncio.run(run(cli))))


if __name__ == "__main__":
    main()
