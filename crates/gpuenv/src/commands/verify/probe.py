# gpuenv verify: the script gpuenv runs with the environment's own Python (`python -c`).
# It prints one JSON object per step on stdout, each on a line starting with "@@gpuenv-verify@@ ",
# flushed at once, so a hang or a crash still leaves every finished step behind.
# argv[1]: torch | tensorflow | jax. Steps: python, start (before the import), import, cuda,
# matmul and conv (one per visible GPU), memory, libraries (/proc/self/maps), done.
import json
import os
import sys
import time
import traceback
import warnings

MARK = "@@gpuenv-verify@@ "
FRAMEWORK = sys.argv[1] if len(sys.argv) > 1 else "torch"
CUDA_LIBS = (
    "libcuda.so", "libcudart", "libcudnn", "libcublas", "libcublasLt", "libcufft", "libcurand",
    "libcusparse", "libcusolver", "libnccl", "libnvrtc", "libnvJitLink", "libnvidia-ml",
    "libcupti", "libnvToolsExt", "libnvjpeg", "libcufile", "libnvperf", "libcudadevrt",
)


def emit(step, ok, **fields):
    fields["step"] = step
    fields["ok"] = ok
    out = sys.__stdout__
    out.write(MARK + json.dumps(fields, default=str) + "\n")
    out.flush()


def error_text(exc):
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-20000:]


def mapped_libraries():
    seen = []
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                parts = line.split(None, 5)
                if len(parts) < 6:
                    continue
                path = parts[5].strip()
                base = os.path.basename(path)
                if path.startswith("/") and base.startswith(CUDA_LIBS) and path not in seen:
                    seen.append(path)
    except OSError as exc:
        return None, str(exc)
    return seen, None


def timed(fn, sync, repeat=5):
    fn()
    sync()
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    sync()
    return (time.perf_counter() - start) * 1000.0 / repeat


def run_torch():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t0 = time.perf_counter()
        import torch
        emit("import", True, version=torch.__version__, ms=(time.perf_counter() - t0) * 1000.0,
             file=getattr(torch, "__file__", None))
        available = torch.cuda.is_available()
        count = torch.cuda.device_count() if available else 0
    notes = [str(w.message) for w in caught]
    devices = []
    for i in range(count):
        p = torch.cuda.get_device_properties(i)
        devices.append({"index": i, "name": p.name, "cc": "%d.%d" % (p.major, p.minor),
                        "memory_bytes": p.total_memory})
    cudnn = torch.backends.cudnn.version() if available else None
    emit("cuda", available and count > 0, cuda=torch.version.cuda, cudnn=cudnn,
         device_count=count, devices=devices,
         error=None if available else ("torch.cuda.is_available() is False. " + " ".join(notes)))
    if not available:
        return
    torch.backends.cudnn.enabled = True
    for i in range(count):
        dev = torch.device("cuda", i)
        sync = lambda: torch.cuda.synchronize(dev)
        try:
            a = torch.randn(4096, 4096, device=dev)
            b = torch.randn(4096, 4096, device=dev)
            ms = timed(lambda: a @ b, sync)
            emit("matmul", True, device=i, ms=ms, tflops=2 * 4096 ** 3 / (ms / 1000.0) / 1e12)
        except Exception as exc:
            emit("matmul", False, device=i, error=error_text(exc))
        try:
            x = torch.randn(32, 64, 56, 56, device=dev)
            conv = torch.nn.Conv2d(64, 64, 3, padding=1).to(dev)
            with torch.no_grad():
                ms = timed(lambda: conv(x), sync)
            emit("conv", True, device=i, ms=ms, cudnn=torch.backends.cudnn.version())
        except Exception as exc:
            emit("conv", False, device=i, error=error_text(exc))
    peaks = [{"device": i, "peak_bytes": torch.cuda.max_memory_allocated(i)} for i in range(count)]
    emit("memory", True, devices=peaks)


def run_tensorflow():
    t0 = time.perf_counter()
    import tensorflow as tf
    emit("import", True, version=tf.__version__, ms=(time.perf_counter() - t0) * 1000.0,
         file=getattr(tf, "__file__", None))
    info = dict(tf.sysconfig.get_build_info())
    gpus = tf.config.list_physical_devices("GPU")
    devices = []
    for i, g in enumerate(gpus):
        d = tf.config.experimental.get_device_details(g)
        cc = d.get("compute_capability")
        devices.append({"index": i, "name": d.get("device_name"),
                        "cc": "%d.%d" % cc if cc else None})
    emit("cuda", len(gpus) > 0, cuda=info.get("cuda_version"), cudnn=info.get("cudnn_version"),
         device_count=len(gpus), devices=devices,
         error=None if gpus else "TensorFlow sees no GPU (list_physical_devices('GPU') is empty)")
    for i in range(len(gpus)):
        name = "/GPU:%d" % i
        try:
            with tf.device(name):
                a = tf.random.normal((4096, 4096))
                b = tf.random.normal((4096, 4096))
                ms = timed(lambda: tf.linalg.matmul(a, b).numpy()[0, 0], lambda: None)
            emit("matmul", True, device=i, ms=ms, tflops=2 * 4096 ** 3 / (ms / 1000.0) / 1e12)
        except Exception as exc:
            emit("matmul", False, device=i, error=error_text(exc))
        try:
            with tf.device(name):
                x = tf.random.normal((32, 56, 56, 64))
                k = tf.random.normal((3, 3, 64, 64))
                ms = timed(lambda: tf.nn.conv2d(x, k, 1, "SAME").numpy()[0, 0, 0, 0], lambda: None)
            emit("conv", True, device=i, ms=ms)
        except Exception as exc:
            emit("conv", False, device=i, error=error_text(exc))
    peaks = []
    for i in range(len(gpus)):
        try:
            peaks.append({"device": i,
                          "peak_bytes": tf.config.experimental.get_memory_info("GPU:%d" % i)["peak"]})
        except Exception:
            pass
    if gpus:
        emit("memory", True, devices=peaks)


def run_jax():
    t0 = time.perf_counter()
    import jax
    import jax.numpy as jnp
    emit("import", True, version=jax.__version__, ms=(time.perf_counter() - t0) * 1000.0,
         file=getattr(jax, "__file__", None))
    try:
        gpus = jax.devices("gpu")
        error = None
    except Exception as exc:
        gpus = []
        error = error_text(exc)
    devices = [{"index": i, "name": getattr(d, "device_kind", str(d)),
                "cc": getattr(d, "compute_capability", None)} for i, d in enumerate(gpus)]
    emit("cuda", len(gpus) > 0, device_count=len(gpus), devices=devices,
         error=error or (None if gpus else "JAX sees no GPU"))
    for i, d in enumerate(gpus):
        try:
            a = jax.device_put(jnp.ones((4096, 4096), jnp.float32), d)
            ms = timed(lambda: (a @ a).block_until_ready(), lambda: None)
            emit("matmul", True, device=i, ms=ms, tflops=2 * 4096 ** 3 / (ms / 1000.0) / 1e12)
        except Exception as exc:
            emit("matmul", False, device=i, error=error_text(exc))
        try:
            x = jax.device_put(jnp.ones((32, 64, 56, 56), jnp.float32), d)
            k = jax.device_put(jnp.ones((64, 64, 3, 3), jnp.float32), d)
            f = jax.jit(lambda x, k: jax.lax.conv(x, k, (1, 1), "SAME"))
            ms = timed(lambda: f(x, k).block_until_ready(), lambda: None)
            emit("conv", True, device=i, ms=ms)
        except Exception as exc:
            emit("conv", False, device=i, error=error_text(exc))
    peaks = []
    for i, d in enumerate(gpus):
        stats = d.memory_stats() or {}
        if "peak_bytes_in_use" in stats:
            peaks.append({"device": i, "peak_bytes": stats["peak_bytes_in_use"]})
    if gpus:
        emit("memory", True, devices=peaks)


def parent_of(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def guard():
    """Dies with gpuenv. gpuenv runs this in a process group of its own (so Ctrl-C reaches only
    gpuenv) and kills the group when it is done; if gpuenv itself dies first (Ctrl-C, a kill), a
    forked watchdog process, which a hung import cannot block, kills the whole group, and the
    kernel kills this process (PR_SET_PDEATHSIG) should the watchdog be missing."""
    leader = os.getpid()
    gpuenv = os.getppid()
    if os.getpgid(0) != leader:
        return  # not gpuenv's group (run by hand): never kill a shell's group
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, 9, 0, 0, 0)  # PR_SET_PDEATHSIG, SIGKILL
    except Exception:
        pass
    try:
        pid = os.fork()
    except OSError:
        return
    if pid != 0:
        return
    try:
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        while os.getppid() == leader and parent_of(leader) == gpuenv:
            time.sleep(0.2)
        os.killpg(leader, 9)
    finally:
        os._exit(0)


def main():
    guard()
    emit("python", True, version=sys.version.split()[0], executable=sys.executable,
         prefix=sys.prefix, ld_preload=os.environ.get("LD_PRELOAD"))
    emit("start", True, framework=FRAMEWORK)
    runner = {"torch": run_torch, "tensorflow": run_tensorflow, "jax": run_jax}.get(FRAMEWORK)
    failed = False
    try:
        if runner is None:
            raise ValueError("unknown framework " + FRAMEWORK)
        runner()
    except BaseException as exc:
        failed = True
        emit("error", False, error=error_text(exc))
    libs, err = mapped_libraries()
    emit("libraries", libs is not None, mapped=libs or [], error=err)
    emit("done", not failed)


main()
