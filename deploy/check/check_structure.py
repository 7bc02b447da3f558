"""Structural checks for deploy/: what kubeconform or hadolint would catch that matters here,
plus darkroom's own rules (grace periods longer than the worker's, secrets that exist, flags
that the built binary accepts). Exits non-zero naming every problem."""
import pathlib
import re
import shlex
import subprocess
import sys

import yaml

deploy = pathlib.Path(sys.argv[1])
darkroom = sys.argv[2]
problems = []


def problem(where, message):
    problems.append(f"{where}: {message}")


def help_flags(*command):
    text = subprocess.run([darkroom, *command, "--help"], capture_output=True, text=True, check=True).stdout
    return set(re.findall(r"--[a-z][a-z-]*", text))


flags = {"worker": help_flags("worker"), "job run": help_flags("job", "run"), "serve": help_flags("serve")}


def help_variables(*command):
    text = subprocess.run([darkroom, *command, "--help"], capture_output=True, text=True, check=True).stdout
    return set(re.findall(r"\$([A-Z][A-Z0-9_]*)", text))


# The environment variables darkroom reads, as its --help names them: a variable the deploy files
# set that no command reads is a typo (AWS_SECRET_KEY) or a leftover.
read_variables = set().union(*(help_variables(*command) for command in (("worker",), ("job", "run"), ("serve",), ("import",))))


def check_command(where, words):
    """darkroom invocations in a shell line or argument list use flags the binary knows."""
    if isinstance(words, str):
        words = shlex.split(words)
    for index, word in enumerate(words):
        if not word.endswith("darkroom") and word != "darkroom":
            continue
        rest = words[index + 1:]
        if rest[:1] == ["worker"]:
            known = flags["worker"]
        elif rest[:2] == ["job", "run"]:
            known = flags["job run"]
        elif rest[:1] == ["serve"]:
            known = flags["serve"]
        else:
            continue
        for flag in rest:
            if flag in ("&&", ";", "|"):
                break
            if flag.startswith("--") and flag.split("=")[0] not in known:
                problem(where, f"darkroom {rest[0]} has no flag {flag}")


# ---- Kubernetes -------------------------------------------------------------------------
REQUIRED = {"Deployment": "apps/v1", "CronJob": "batch/v1", "Secret": "v1", "PersistentVolumeClaim": "v1", "Service": "v1",
            "ServiceMonitor": "monitoring.coreos.com/v1"}
# deploy/kubernetes/ and its object-storage variant (object-storage/), which replaces the worker
# Deployment and housekeeping CronJob of the same names and uses the same Secrets and Services.
documents = []
kubernetes = deploy / "kubernetes"
for path in sorted(kubernetes.glob("*.yaml")) + sorted((kubernetes / "object-storage").glob("*.yaml")):
    for document in yaml.safe_load_all(path.read_text()):
        if document is not None:
            documents.append((str(path.relative_to(kubernetes)), document))

secrets = {d["metadata"]["name"]: set((d.get("stringData") or d.get("data") or {}).keys())
           for _, d in documents if d.get("kind") == "Secret"}
claims = {d["metadata"]["name"] for _, d in documents if d.get("kind") == "PersistentVolumeClaim"}
if not secrets:
    problem("kubernetes", "no Secret manifest: the PostgreSQL connection must come from a Secret")

def grace_of(args):
    words = shlex.split(" ".join(args)) if args else []
    for index, word in enumerate(words):
        if word == "--shutdown-grace":
            return float(words[index + 1])
    return 30.0  # the worker's default


def flag_value(words, flag):
    """The value after `flag` in a shell line or argument list, or None."""
    words = shlex.split(" ".join(words)) if words else []
    for index, word in enumerate(words[:-1]):
        if word == flag:
            return words[index + 1]
    return None


def listen_port(value):
    """The port of a host:port value, or None."""
    if value is None or ":" not in value:
        return None
    port = value.rsplit(":", 1)[1]
    return int(port) if port.isdigit() else None


def check_metrics(where, template):
    """A worker pod serves /metrics on a named port that its --metrics-listen and its
    prometheus.io annotations agree on; probes name ports the container has."""
    pod = template.get("spec") or {}
    annotations = (template.get("metadata") or {}).get("annotations") or {}
    for container in pod.get("containers") or []:
        name = f"{where} container {container.get('name')}"
        ports = {p.get("name"): p.get("containerPort") for p in container.get("ports") or []}
        for probe in ("livenessProbe", "readinessProbe"):
            port = ((container.get(probe) or {}).get("httpGet") or {}).get("port")
            if port is not None and port not in ports and port not in ports.values():
                problem(name, f"{probe} uses port {port}, which the container does not declare")
        args = container.get("args") or []
        if args[:1] == ["worker"]:
            metrics = listen_port(flag_value(args, "--metrics-listen"))
            if metrics is None:
                problem(name, "a worker must serve its metrics: --metrics-listen HOST:PORT")
            elif ports.get("metrics") != metrics:
                problem(name, f"the port named metrics must be --metrics-listen's {metrics}")
            if annotations.get("prometheus.io/scrape") != "true":
                problem(where, 'the pod template needs the annotation prometheus.io/scrape: "true"')
            if annotations.get("prometheus.io/port") != str(metrics):
                problem(where, f"annotation prometheus.io/port must be {metrics!r} (--metrics-listen), as a string")
            if annotations.get("prometheus.io/path") != "/metrics":
                problem(where, "annotation prometheus.io/path must be /metrics")
        elif args[:1] == ["serve"]:
            port = listen_port(flag_value(args, "--listen"))
            if port is None or ports.get("http") != port:
                problem(name, "the port named http must be serve's --listen port")


S3_URL = re.compile(r"s3://([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(/[^/].*)?$")


def check_object_storage(name, pod, container, env):
    """A pod on a bucket: no shared volume, the bucket's credentials from a Secret, the region
    set, and its scratch folder (spills) on a volume of its own when the root filesystem is
    read-only."""
    storage = env["DARKROOM_STORAGE"]["value"]
    match = S3_URL.match(storage)
    if not match or ".." in storage or "//" in storage[5:]:
        problem(name, f"DARKROOM_STORAGE {storage!r} is not s3://BUCKET or s3://BUCKET/PREFIX")
    for volume in pod.get("volumes") or []:
        if "persistentVolumeClaim" in volume:
            problem(name, f"on object storage a pod needs no shared volume, but mounts claim {volume['persistentVolumeClaim'].get('claimName')}")
    for variable in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        if "secretKeyRef" not in ((env.get(variable) or {}).get("valueFrom") or {}):
            problem(name, f"{variable} must come from a Secret (valueFrom.secretKeyRef)")
    if "AWS_REGION" not in env:
        problem(name, "AWS_REGION is not set (the signature names it)")
    read_only = ((container.get("securityContext") or {}).get("readOnlyRootFilesystem")) is True
    scratch = (env.get("DARKROOM_SCRATCH") or {}).get("value")
    if (container.get("args") or [])[:1] == ["worker"] and read_only:
        mounts = {m.get("mountPath"): m.get("name") for m in container.get("volumeMounts") or []}
        volumes = {v["name"]: v for v in pod.get("volumes") or []}
        if scratch is None:
            problem(name, "a worker with a read-only root filesystem needs DARKROOM_SCRATCH on a volume (an emptyDir)")
        elif "emptyDir" not in volumes.get(mounts.get(scratch), {}):
            problem(name, f"DARKROOM_SCRATCH {scratch} must be the mount path of an emptyDir volume")


def check_pod(where, pod, needs_grace):
    containers = pod.get("containers") or []
    if not containers:
        problem(where, "no containers")
    context = pod.get("securityContext") or {}
    if context.get("runAsNonRoot") is not True:
        problem(where, "securityContext.runAsNonRoot must be true")
    volumes = {v["name"]: v for v in pod.get("volumes") or []}
    for volume in volumes.values():
        claim = (volume.get("persistentVolumeClaim") or {}).get("claimName")
        if claim is not None and claim not in claims:
            problem(where, f"volume {volume['name']} uses claim {claim}, which no manifest defines")
    for container in containers:
        name = f"{where} container {container.get('name')}"
        image = container.get("image", "")
        if ":" not in image.rsplit("/", 1)[-1] or image.endswith(":latest"):
            problem(name, f"image {image!r} must carry a version tag, not latest")
        if not ((container.get("resources") or {}).get("limits") or {}).get("memory"):
            problem(name, "resources.limits.memory is required (renders are memory-bound)")
        env = {e["name"]: e for e in container.get("env") or []}
        database = env.get("DATABASE_URL")
        if database is None or "secretKeyRef" not in (database.get("valueFrom") or {}):
            problem(name, "DATABASE_URL must come from a Secret (valueFrom.secretKeyRef)")
        for variable in env.values():
            reference = (variable.get("valueFrom") or {}).get("secretKeyRef")
            if reference and reference.get("key") not in secrets.get(reference.get("name"), set()):
                problem(name, f"{variable['name']} refers to secret {reference.get('name')}/{reference.get('key')}, which is not defined")
        if "DARKROOM_STORAGE" not in env:
            problem(name, "DARKROOM_STORAGE is not set")
        elif str(env["DARKROOM_STORAGE"].get("value", "")).startswith("s3://"):
            check_object_storage(name, pod, container, env)
        for variable in env:
            if variable.startswith(("DARKROOM_", "AWS_")) and variable not in read_variables:
                problem(name, f"sets {variable}, which no darkroom command reads (see darkroom … --help)")
        for mount in container.get("volumeMounts") or []:
            if mount["name"] not in volumes:
                problem(name, f"mounts volume {mount['name']}, which the pod does not define")
        words = (container.get("command") or []) + (container.get("args") or [])
        line = " ".join(words)
        if container.get("command") and container["command"][:2] == ["/bin/sh", "-c"]:
            check_command(name, line.replace("/bin/sh -c ", "", 1))
        else:
            check_command(name, ["darkroom"] + (container.get("args") or []))
        if needs_grace:
            grace = grace_of(container.get("args"))
            period = pod.get("terminationGracePeriodSeconds", 30)
            if period <= grace:
                problem(where, f"terminationGracePeriodSeconds ({period}) must exceed the worker's --shutdown-grace ({grace})")


for file, document in documents:
    kind = document.get("kind")
    where = f"{file} ({kind})"
    if kind not in REQUIRED:
        problem(where, f"unexpected kind {kind!r}")
        continue
    if document.get("apiVersion") != REQUIRED[kind]:
        problem(where, f"apiVersion must be {REQUIRED[kind]}, not {document.get('apiVersion')}")
    if not (document.get("metadata") or {}).get("name"):
        problem(where, "metadata.name is missing")
    spec = document.get("spec") or {}
    if kind == "Deployment":
        selector = (spec.get("selector") or {}).get("matchLabels") or {}
        labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
        if not selector or any(labels.get(k) != v for k, v in selector.items()):
            problem(where, "spec.selector.matchLabels must match the pod template's labels")
        template = spec.get("template") or {}
        runs_worker = any((c.get("args") or [])[:1] == ["worker"] for c in (template.get("spec") or {}).get("containers") or [])
        check_pod(where, template.get("spec") or {}, needs_grace=runs_worker)
        check_metrics(where, template)
    elif kind == "CronJob":
        if len(str(spec.get("schedule", "")).split()) != 5:
            problem(where, f"schedule {spec.get('schedule')!r} is not a 5-field cron expression")
        if spec.get("concurrencyPolicy") != "Forbid":
            problem(where, "concurrencyPolicy must be Forbid: two runs at once would queue the same work twice")
        pod = (((spec.get("jobTemplate") or {}).get("spec") or {}).get("template") or {}).get("spec") or {}
        if pod.get("restartPolicy") not in ("Never", "OnFailure"):
            problem(where, "restartPolicy must be Never or OnFailure")
        check_pod(where, pod, needs_grace=False)

# ---- Services and ServiceMonitors: each selects something that exists, by labels and port name
pods = [((d.get("spec") or {}).get("template") or {}) for _, d in documents if d.get("kind") == "Deployment"]


def selects(selector, labels):
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


services = [(f, d) for f, d in documents if d.get("kind") == "Service"]
for file, service in services:
    where = f"{file} (Service {service['metadata'].get('name')})"
    selector = (service.get("spec") or {}).get("selector") or {}
    matched = [p for p in pods if selects(selector, (p.get("metadata") or {}).get("labels") or {})]
    if not matched:
        problem(where, "its selector matches no Deployment's pods")
    names = {port.get("name") for p in matched for c in (p.get("spec") or {}).get("containers") or [] for port in c.get("ports") or []}
    for port in (service.get("spec") or {}).get("ports") or []:
        if isinstance(port.get("targetPort"), str) and port["targetPort"] not in names:
            problem(where, f"targetPort {port['targetPort']} is not a named port of the pods it selects")
monitored = set()
for file, monitor in documents:
    if monitor.get("kind") != "ServiceMonitor":
        continue
    where = f"{file} (ServiceMonitor {monitor['metadata'].get('name')})"
    spec = monitor.get("spec") or {}
    selector = (spec.get("selector") or {}).get("matchLabels") or {}
    matched = [s for _, s in services if selects(selector, s["metadata"].get("labels") or {})]
    if not matched:
        problem(where, "its selector matches no Service")
    ports = {p.get("name") for s in matched for p in (s.get("spec") or {}).get("ports") or []}
    for endpoint in spec.get("endpoints") or []:
        if endpoint.get("port") not in ports:
            problem(where, f"endpoint port {endpoint.get('port')} is not a named port of the Services it selects")
        if endpoint.get("path") != "/metrics":
            problem(where, "endpoint path must be /metrics")
        seconds = {k: int(str(endpoint.get(k, "0s")).rstrip("s") or 0) for k in ("interval", "scrapeTimeout")}
        if not 0 < seconds["scrapeTimeout"] <= seconds["interval"]:
            problem(where, "scrapeTimeout must be set and no longer than interval")
    monitored |= {s["metadata"]["labels"].get("app.kubernetes.io/component") for s in matched}
for component in ("worker", "dashboard"):
    if component not in monitored:
        problem("kubernetes", f"no ServiceMonitor scrapes the {component}'s /metrics")

names = {(d.get("kind"), d["metadata"]["name"]) for _, d in documents}
if not any(k == "Deployment" for k, _ in names):
    problem("kubernetes", "no worker Deployment")
nightly = [d for _, d in documents if d.get("kind") == "CronJob" and "job run nightly" in yaml.safe_dump(d)]
if not nightly or "--drain" not in yaml.safe_dump(nightly[0]):
    problem("kubernetes", "no nightly CronJob running `darkroom job run nightly && darkroom worker --drain`")

# ---- systemd: the flags the units pass ---------------------------------------------------
for unit in sorted((deploy / "systemd").glob("*.service")):
    for line in unit.read_text().splitlines():
        if line.startswith("ExecStart="):
            command = line.split("=", 1)[1]
            check_command(unit.name, command)
            words = shlex.split(command)
            if words[1:2] == ["worker"] and "--drain" not in words and "--metrics-listen" not in words:
                problem(unit.name, "a long-running worker must serve its metrics: --metrics-listen HOST:PORT")

# ---- systemd: the environment files ---------------------------------------------------------
def environment(path):
    """The KEY=VALUE lines of an environment file, comments and blanks skipped."""
    pairs = {}
    for line in path.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.partition("=")
            pairs[key.strip()] = value.strip()
    return pairs


units = {unit.name: unit.read_text() for unit in sorted((deploy / "systemd").glob("*.service"))}
referenced = set()
for text in units.values():
    for line in text.splitlines():
        if line.startswith("ExecStart="):
            referenced |= set(re.findall(r"\$\{([A-Z][A-Z0-9_]*)\}", line))
# Each of these is a complete /etc/darkroom/darkroom.env: a storage root, or a bucket.
for file in ("darkroom.env.example", "darkroom-s3.env.example"):
    path = deploy / "systemd" / file
    if not path.exists():
        problem(file, "is missing")
        continue
    variables = environment(path)
    for variable in sorted(referenced - variables.keys()):
        problem(file, f"does not set {variable}, which a unit's ExecStart uses")
    for variable in variables:
        if variable not in read_variables and variable not in referenced:
            problem(file, f"sets {variable}, which neither darkroom (see darkroom … --help) nor a unit reads")
    for variable in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
        if variable in variables:
            problem(file, f"{variable} belongs in /etc/darkroom/s3-credentials.env (mode 0600), not in darkroom.env")
s3_environment = environment(deploy / "systemd" / "darkroom-s3.env.example") if (deploy / "systemd" / "darkroom-s3.env.example").exists() else {}
if not S3_URL.match(s3_environment.get("DARKROOM_STORAGE", "")):
    problem("darkroom-s3.env.example", "DARKROOM_STORAGE must be s3://BUCKET/PREFIX")
if "AWS_REGION" not in s3_environment:
    problem("darkroom-s3.env.example", "AWS_REGION is not set (the signature names it)")
credentials = deploy / "systemd" / "darkroom-s3-credentials.env.example"
if not credentials.exists():
    problem("systemd", "darkroom-s3-credentials.env.example is missing")
else:
    for variable in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        if variable not in environment(credentials):
            problem(credentials.name, f"does not set {variable}")
    for variable in environment(credentials):
        if variable not in read_variables:
            problem(credentials.name, f"sets {variable}, which no darkroom command reads")
# Every unit runs on either kind of host: the credentials file and the storage root are optional.
for name, text in units.items():
    lines = text.splitlines()
    if "EnvironmentFile=/etc/darkroom/darkroom.env" in lines and "EnvironmentFile=-/etc/darkroom/s3-credentials.env" not in lines:
        problem(name, "reads darkroom.env but not EnvironmentFile=-/etc/darkroom/s3-credentials.env (hosts on a bucket)")
    for line in lines:
        if line.startswith("ReadWritePaths=/srv/darkroom"):
            problem(name, "ReadWritePaths=-/srv/darkroom: a host on a bucket has no storage root, and the unit must still start")

# ---- Containerfile ------------------------------------------------------------------------
containerfile = deploy / "container" / "Containerfile"
root = deploy.parent
lines = []
for raw in re.sub(r"\\\n", " ", containerfile.read_text()).splitlines():
    stripped = raw.strip()
    if stripped and not stripped.startswith("#"):
        lines.append(stripped)
instructions = [(line.split(None, 1)[0].upper(), line.split(None, 1)[1] if " " in line else "") for line in lines]
where = "Containerfile"
if not instructions or instructions[0][0] != "FROM":
    problem(where, "the first instruction must be FROM")
stages = [i for i, (op, _) in enumerate(instructions) if op == "FROM"]
for index in stages:
    image = instructions[index][1].split()[0]
    if ":" not in image.rsplit("/", 1)[-1] or image.endswith(":latest"):
        problem(where, f"FROM {image} must pin a version tag")
final = instructions[stages[-1]:]
users = [argument for op, argument in final if op == "USER"]
if not users or users[-1].split(":")[0] in ("root", "0"):
    problem(where, "the final stage must switch to a non-root USER")
if ("STOPSIGNAL", "SIGTERM") not in final:
    problem(where, "STOPSIGNAL SIGTERM is required: it starts the worker's graceful shutdown")
entrypoints = [argument for op, argument in final if op == "ENTRYPOINT"]
if not entrypoints or not entrypoints[-1].startswith("["):
    problem(where, "ENTRYPOINT must use the exec (JSON) form so signals reach darkroom, not a shell")
for op, argument in instructions:
    if op == "RUN" and "apt-get install" in argument:
        if "--no-install-recommends" not in argument:
            problem(where, "apt-get install without --no-install-recommends")
        if "rm -rf /var/lib/apt/lists" not in argument:
            problem(where, "apt-get install without removing /var/lib/apt/lists in the same RUN")
    if op == "COPY" and "--from=" not in argument:
        for source in argument.split()[:-1]:
            if not (root / source).exists():
                problem(where, f"COPY source {source} does not exist in the repository")
if not any(op == "COPY" and "/usr/share/darkroom/jobs" in argument for op, argument in final):
    problem(where, "the image must ship Jobs/ at /usr/share/darkroom/jobs")

if problems:
    print("\n".join(problems), file=sys.stderr)
    sys.exit(1)
print(f"kubernetes: {len(documents)} manifests, containerfile: {len(instructions)} instructions, flags checked")
