#!/usr/bin/env python3
"""The pages to share, measured: the size of every replay page (each ticket of each lesson and
runtime, the starter beside the fix, and each lesson's whole page), the size of `grade --format
html` for a class of 1,000 files, and how long chromium takes to render the largest of them,
interleaved with an empty page (the floor of opening any file) so load on a busy machine favours
neither. Standard library only; chromium and chromedriver as the browser tests use them.

    tests/bench/pages.py [runs]        (default 15 loads of each page)

WORKSHOP_BIN: the binary (default: target/debug/workshop, built when missing; a page's bytes and
the browser's time do not depend on how the binary was optimised).
"""
import json, os, shutil, socket, statistics, subprocess, sys, tempfile, time, urllib.request

repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
binary = os.environ.get("WORKSHOP_BIN") or os.path.join(repo, "target/debug/workshop")
if not os.environ.get("WORKSHOP_BIN"):
    subprocess.run(["cargo", "build", "--quiet", "--manifest-path", os.path.join(repo, "Cargo.toml")], check=True)
work = tempfile.mkdtemp(prefix="pages-bench")
root = os.path.join(work, "root")
for part in ["lessons", "starter", "recordings"]:
    shutil.copytree(os.path.join(repo, part), os.path.join(root, part))
os.makedirs(os.path.join(root, "work"))


def workshop(*args, **kw):
    return subprocess.run([binary, "--root", root, *args], capture_output=True, text=True, **kw)


def size(path):
    return os.path.getsize(path)


# Every replay page: one per ticket and runtime (compared), and one per lesson and runtime.
pages = []
for lesson in sorted(os.listdir(os.path.join(root, "lessons"))):
    if not os.path.isdir(os.path.join(root, "lessons", lesson)):
        continue
    for runtime in ["harness", "sdk"]:
        listing = workshop("watch", lesson, "--runtime", runtime, "--compare", "--format", "json")
        if listing.returncode != 0:
            continue
        whole = os.path.join(work, f"{lesson}-{runtime}.html")
        workshop("watch", lesson, "--runtime", runtime, "--compare", "--html", whole, check=True)
        pages.append(("lesson", f"{lesson} {runtime}, every ticket", whole))
        for replay in json.loads(listing.stdout):
            ticket = replay["ticket"]
            one = os.path.join(work, f"{lesson}-{runtime}-{ticket}.html")
            workshop("watch", lesson, "--ticket", ticket, "--runtime", runtime, "--compare", "--html", one, check=True)
            pages.append(("ticket", f"{lesson} {runtime} {ticket}", one))
tickets = sorted((p for p in pages if p[0] == "ticket"), key=lambda p: size(p[2]))
lessons = sorted((p for p in pages if p[0] == "lesson"), key=lambda p: size(p[2]))
print(f"replay pages: {len(tickets)} tickets, {len(lessons)} whole lessons")
print(f"  largest ticket page: {tickets[-1][1]}: {size(tickets[-1][2]) / 1024:.1f} KB (smallest {size(tickets[0][2]) / 1024:.1f} KB)")
print(f"  largest lesson page: {lessons[-1][1]}: {size(lessons[-1][2]) / 1024:.1f} KB")

# A class of 1,000 files: the learner fixtures that end within their deadline, over and over.
fixtures = os.path.join(repo, "tests/fixtures/learners")
slow = ("loop", "sleep", "megabytes", "floods", "huge", "daemon", "stdin", "nests")
files = sorted(f for f in os.listdir(fixtures) if f.endswith(".py") and not any(s in f for s in slow))
klass = os.path.join(work, "class")
for i in range(1000):
    folder = os.path.join(klass, f"s{i:04d}")
    os.makedirs(folder)
    shutil.copy(os.path.join(fixtures, files[i % len(files)]), os.path.join(folder, "errors.py"))
class_page = os.path.join(work, "class.html")
started = time.monotonic()
with open(class_page, "w") as out:
    graded = subprocess.run([binary, "--root", root, "grade", "structured-errors", klass, "--format", "html",
                             "--sandbox", "none", "--jobs", "2"], stdout=out, stderr=subprocess.PIPE, text=True)
print(f"class page: {graded.stderr.splitlines()[0]}; {size(class_page) / 1024:.1f} KB "
      f"({size(class_page) / 1000:.0f} bytes a file; grading took {time.monotonic() - started:.1f} s)")

# The browser: each page loaded `runs` times, interleaved with an empty page.
floor = os.path.join(work, "empty.html")
with open(floor, "w") as out:
    out.write("<!doctype html><meta charset=utf-8><title>empty</title><p>empty</p>\n")
sock = socket.socket()
sock.bind(("127.0.0.1", 0))
port = sock.getsockname()[1]
sock.close()
driver = subprocess.Popen(["chromedriver", f"--port={port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
base = f"http://127.0.0.1:{port}"


def call(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request) as answer:
        return json.load(answer)["value"]


for _ in range(400):
    try:
        call("GET", "/status")
        break
    except OSError:
        time.sleep(0.025)
flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={work}/profile", "--window-size=1200,900"]
session = call("POST", "/session", {"capabilities": {"alwaysMatch": {
    "goog:chromeOptions": {"binary": "/usr/bin/chromium", "args": flags}}}})["sessionId"]
TIMING = """const n = performance.getEntriesByType('navigation')[0];
const paint = performance.getEntriesByName('first-contentful-paint')[0];
return [n.loadEventEnd, paint ? paint.startTime : null];"""
measured = [("empty page (floor)", floor), (f"largest ticket page ({tickets[-1][1]})", tickets[-1][2]),
            (f"largest lesson page ({lessons[-1][1]})", lessons[-1][2]), ("class of 1,000 files", class_page)]
times = {name: [] for name, _ in measured}
paints = {name: [] for name, _ in measured}
try:
    for _ in range(runs):
        for name, path in measured:
            call("POST", f"/session/{session}/url", {"url": "about:blank"})
            call("POST", f"/session/{session}/url", {"url": "file://" + path})
            loaded, painted = call("POST", f"/session/{session}/execute/sync", {"script": TIMING, "args": []})
            times[name].append(loaded)
            if painted is not None:
                paints[name].append(painted)
finally:
    call("DELETE", f"/session/{session}")
    driver.terminate()
    driver.wait()
print(f"chromium {runs} loads each, interleaved: median (min-max) ms from navigation to the load event; first paint")
floor_ms = statistics.median(times["empty page (floor)"])
for name, path in measured:
    t = times[name]
    paint = f"{statistics.median(paints[name]):.0f} ms" if paints[name] else "n/a"
    print(f"  {name}: {size(path) / 1024:.1f} KB, {statistics.median(t):.0f} ms ({min(t):.0f}-{max(t):.0f}), "
          f"{statistics.median(t) / floor_ms:.1f}x the empty page; first paint {paint}")
shutil.rmtree(work)
