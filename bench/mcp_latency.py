"""Search latency as an agent meets it: `ragdownd stdio` on copies of the runbook corpus, driven over
MCP stdio by the official MCP Python SDK, with every answerable corpus question asked through
`ragdown_recall` (top_k 8) and `ragdown_context` (the hook's defaults, no session), each timed
from the client's call to its answer. Also the first index (from the server's start to the first
`ragdown_reindex` answering), a no-op re-sync through `ragdown_reindex`, and the server's peak RSS
(VmHWM, the first index included) and its RSS after all of it. Prints one JSON object.

    python bench/mcp_latency.py --ragdownd target/release/ragdownd --corpus DIR --copies 500

DIR is what `ragdown-bench corpus --out DIR` writes (its questions.json is read, then left out of
the copies). Run by bench/run.sh.
"""

import argparse
import asyncio
import json
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * p // 100))  # ceil, as ragdown-bench's percentile
    return round(ordered[int(rank) - 1], 2)


def server_pid(name: str) -> int:
    """The pid of this process's child running `name` (the SDK does not expose it)."""
    me = os.getpid()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1 : stat.rindex(")")]
        ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
        if ppid == me and comm == name[:15]:
            return int(entry.name)
    raise RuntimeError(f"no child process named {name}")


def rss_mb(pid: int, field: str) -> float:
    """VmHWM (the peak) or VmRSS (now) of process `pid`, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return round(int(line.split()[1]) / 1024)
    raise RuntimeError(f"no {field}")


async def timed(session: ClientSession, tool: str, args: dict) -> tuple[float, str]:
    started = time.perf_counter()
    result = await session.call_tool(tool, args)
    elapsed = (time.perf_counter() - started) * 1000
    text = result.content[0].text if result.content else ""
    if result.isError:
        raise RuntimeError(f"{tool} failed: {text}")
    return elapsed, text


async def run(cli: argparse.Namespace) -> dict:
    corpus = Path(cli.corpus)
    questions = [q["q"] for q in json.loads((corpus / "questions.json").read_text()) if q.get("section")]
    with tempfile.TemporaryDirectory() as work:
        docs = Path(work) / "docs"
        for copy in range(cli.copies):
            shutil.copytree(corpus, docs / f"c{copy:04}", ignore=shutil.ignore_patterns("questions.json"))
        env = dict(os.environ)
        env.update(
            RAGDOWN_EMBEDDER=cli.embedder,
            RAGDOWN_DATA_DIR=str(Path(work) / "data"),
            RAGDOWN_WATCH="false",
            RAGDOWN_LOG="warn",
        )
        if cli.threads:
            env["RAGDOWN_THREADS"] = str(cli.threads)
        params = StdioServerParameters(command=cli.ragdownd, args=["stdio", "--docs", str(docs)], env=env)
        started = time.perf_counter()
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                pid = server_pid(Path(cli.ragdownd).name)
                # The server indexes as it starts; a reindex waits for that sync, then finds nothing.
                _, first = await timed(session, "ragdown_reindex", {})
                first_index_s = time.perf_counter() - started
                noop_ms, report = await timed(session, "ragdown_reindex", {})
                report = json.loads(report)
                stats = json.loads((await timed(session, "ragdown_stats", {}))[1])
                chunks = stats.get("chunks")
                for question in questions[:20]:  # warm-up: the first queries read index files
                    await timed(session, "ragdown_recall", {"query": question, "top_k": 8})
                # The client and protocol's own cost per call: a tools/list round trip.
                roundtrip = []
                for _ in range(50):
                    t = time.perf_counter()
                    await session.list_tools()
                    roundtrip.append((time.perf_counter() - t) * 1000)
                recall, context = [], []
                for _ in range(cli.reps):
                    for question in questions:
                        recall.append((await timed(session, "ragdown_recall", {"query": question, "top_k": 8}))[0])
                        context.append((await timed(session, "ragdown_context", {"prompt": question}))[0])
                rss, rss_now = rss_mb(pid, "VmHWM"), rss_mb(pid, "VmRSS")
    return {
        "workload": "mcp-latency",
        "copies": cli.copies,
        "embedder": cli.embedder,
        "threads": cli.threads,
        "chunks": chunks,
        "first_index_s": round(first_index_s, 1),
        "first_sync": json.loads(first) if first.startswith("{") else first,
        "noop_resync_ms": round(noop_ms, 1),
        "noop_report_unchanged": report.get("unchanged"),
        "questions": len(questions),
        "reps": cli.reps,
        "tools_list_roundtrip_ms_p50": percentile(roundtrip, 50),
        "recall_ms": {"p50": percentile(recall, 50), "p95": percentile(recall, 95), "p99": percentile(recall, 99),
                      "mean": round(statistics.fmean(recall), 2)},
        "context_ms": {"p50": percentile(context, 50), "p95": percentile(context, 95),
                       "p99": percentile(context, 99), "mean": round(statistics.fmean(context), 2)},
        "server_peak_rss_mb": rss,
        "server_rss_after_mb": rss_now,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ragdownd", required=True)
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--copies", type=int, default=50)
    parser.add_argument("--embedder", default="hash")
    parser.add_argument("--threads", type=int)
    parser.add_argument("--reps", type=int, default=1)
    cli = parser.parse_args()
    print(json.dumps(asyncio.run(run(cli))))


if __name__ == "__main__":
    main()
