//! The only code in gpuenv that calls into the NVIDIA driver: NVML (`libnvidia-ml.so.1`) and
//! `cuDriverGetVersion` (`libcuda.so.1`), loaded with `dlopen` on the live root only. Each call
//! runs on a worker thread with a timeout (a wedged GPU can hang NVML), and every failure is a
//! fact, never fatal: without a kernel module `cuDriverGetVersion` still answers and `nvmlInit_v2`
//! returns 9 "Driver Not Loaded" while `nvmlSystemGetNVMLVersion` still answers. No process is
//! spawned, and `cuInit` is never called (it would create a CUDA context's worth of state).
#![allow(unsafe_code)]

use std::ffi::{c_char, c_int, c_uint, CStr};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use gpuenv_facts::{NvmlFacts, NvmlGpu};
use gpuenv_kb::{ComputeCapability, Version};

type NvmlReturn = c_int;
type NvmlDevice = *mut std::ffi::c_void;

const NVML_SUCCESS: NvmlReturn = 0;
const STRING_BUFFER: usize = 256;

/// What the driver API said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriverApi {
    pub library: String,
    /// `cuDriverGetVersion`'s integer (12020 = 12.2), or the error.
    pub version: Result<i32, String>,
}

/// A query running on its own thread; the file probes go on meanwhile.
pub struct Pending<T> {
    rx: mpsc::Receiver<T>,
    deadline: Instant,
}

impl<T> Pending<T> {
    /// The answer, waiting at most until the deadline set when the query started. A thread still
    /// stuck in the driver after it is abandoned; it ends with the process.
    pub fn wait(self) -> Option<T> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        self.rx.recv_timeout(left).ok()
    }
}

/// Starts `work` on a thread that must answer within `timeout`.
fn start<T: Send + 'static>(
    timeout: Duration,
    work: impl FnOnce() -> T + Send + 'static,
) -> Option<Pending<T>> {
    let (tx, rx) = mpsc::channel();
    thread::Builder::new()
        .name("gpuenv-driver-query".into())
        .spawn(move || {
            let _ = tx.send(work());
        })
        .ok()?;
    Some(Pending {
        rx,
        deadline: Instant::now() + timeout,
    })
}

/// Whether this gpuenv is a static build (musl, or `crt-static`): its `dlopen` cannot load the
/// driver's glibc libraries, so NVML and the driver API are not asked and the driver facts come
/// from files only (the probe records `STATIC_BUILD_NOTE`).
pub const STATIC_BUILD: bool = cfg!(any(target_env = "musl", target_feature = "crt-static"));

/// What a static build says instead of asking NVML.
pub const STATIC_BUILD_NOTE: &str = "not asked: this gpuenv is a static build, which cannot load \
     the driver's libraries (dlopen needs glibc); the driver and GPU facts come from files \
     (/proc/driver/nvidia, /sys); use the glibc build (pip install gpuenv) for NVML's view";

/// Starts asking `libcuda.so.1` for `cuDriverGetVersion`; the answer is `None` when the library
/// cannot be loaded.
pub fn start_driver_api(timeout: Duration) -> Option<Pending<Option<DriverApi>>> {
    start(timeout, query_driver_api)
}

/// Starts asking NVML for the driver version and each GPU; `None` when NVML cannot be loaded.
pub fn start_nvml(timeout: Duration) -> Option<Pending<Option<NvmlFacts>>> {
    start(timeout, query_nvml)
}

fn query_driver_api() -> Option<DriverApi> {
    {
        // SAFETY: loading the system's libcuda runs its initialisers, as every CUDA program does.
        let lib = unsafe { libloading::Library::new("libcuda.so.1") }.ok()?;
        // SAFETY: the signature is `CUresult cuDriverGetVersion(int *driverVersion)`.
        let version = unsafe {
            let f: libloading::Symbol<unsafe extern "C" fn(*mut c_int) -> c_int> =
                lib.get(b"cuDriverGetVersion\0").ok()?;
            let mut v: c_int = 0;
            let rc = f(&mut v);
            if rc == 0 {
                Ok(v)
            } else {
                Err(format!("cuDriverGetVersion returned {rc}"))
            }
        };
        // The library stays loaded: unloading libcuda is not supported by NVIDIA.
        std::mem::forget(lib);
        Some(DriverApi {
            library: "libcuda.so.1".into(),
            version,
        })
    }
}

fn c_string(buf: &[u8]) -> Option<String> {
    let s = CStr::from_bytes_until_nul(buf).ok()?.to_str().ok()?.trim();
    (!s.is_empty()).then(|| s.to_string())
}

fn query_nvml() -> Option<NvmlFacts> {
    // SAFETY: every symbol is looked up by its documented name and called with the documented
    // signature (nvml.h); buffers are sized as NVML requires (>= 80 bytes for strings, 96 for UUIDs).
    unsafe {
        let lib = libloading::Library::new("libnvidia-ml.so.1").ok()?;
        let mut facts = NvmlFacts {
            library: "libnvidia-ml.so.1".into(),
            ..NvmlFacts::default()
        };
        type StrFn = unsafe extern "C" fn(*mut c_char, c_uint) -> NvmlReturn;
        let get_str = |name: &[u8]| -> Option<String> {
            let f: libloading::Symbol<StrFn> = lib.get(name).ok()?;
            let mut buf = [0u8; STRING_BUFFER];
            (f(buf.as_mut_ptr().cast(), STRING_BUFFER as c_uint) == NVML_SUCCESS)
                .then(|| c_string(&buf))
                .flatten()
        };
        facts.nvml_version = get_str(b"nvmlSystemGetNVMLVersion\0");
        let error_string = |rc: NvmlReturn| -> String {
            let text = lib
                .get::<unsafe extern "C" fn(NvmlReturn) -> *const c_char>(b"nvmlErrorString\0")
                .ok()
                .map(|f| f(rc))
                .filter(|p| !p.is_null())
                .map(|p| CStr::from_ptr(p).to_string_lossy().into_owned())
                .unwrap_or_default();
            format!("{rc} ({text})")
        };
        let init: libloading::Symbol<unsafe extern "C" fn() -> NvmlReturn> =
            lib.get(b"nvmlInit_v2\0").ok()?;
        let rc = init();
        if rc != NVML_SUCCESS {
            facts.init_error = Some(error_string(rc));
            std::mem::forget(lib);
            return Some(facts);
        }
        facts.driver_version =
            get_str(b"nvmlSystemGetDriverVersion\0").and_then(|s| s.parse::<Version>().ok());
        let count = lib
            .get::<unsafe extern "C" fn(*mut c_uint) -> NvmlReturn>(b"nvmlDeviceGetCount_v2\0")
            .ok()
            .and_then(|f| {
                let mut n: c_uint = 0;
                (f(&mut n) == NVML_SUCCESS).then_some(n)
            })
            .unwrap_or(0);
        let handle = lib
            .get::<unsafe extern "C" fn(c_uint, *mut NvmlDevice) -> NvmlReturn>(
                b"nvmlDeviceGetHandleByIndex_v2\0",
            )
            .ok();
        type DevStrFn = unsafe extern "C" fn(NvmlDevice, *mut c_char, c_uint) -> NvmlReturn;
        let dev_str = |dev: NvmlDevice, name: &[u8]| -> Option<String> {
            let f: libloading::Symbol<DevStrFn> = lib.get(name).ok()?;
            let mut buf = [0u8; STRING_BUFFER];
            (f(dev, buf.as_mut_ptr().cast(), STRING_BUFFER as c_uint) == NVML_SUCCESS)
                .then(|| c_string(&buf))
                .flatten()
        };
        for index in 0..count.min(64) {
            let Some(get_handle) = handle.as_ref() else {
                break;
            };
            let mut dev: NvmlDevice = std::ptr::null_mut();
            if get_handle(index, &mut dev) != NVML_SUCCESS {
                continue;
            }
            let cc = lib
                .get::<unsafe extern "C" fn(NvmlDevice, *mut c_int, *mut c_int) -> NvmlReturn>(
                    b"nvmlDeviceGetCudaComputeCapability\0",
                )
                .ok()
                .and_then(|f| {
                    let (mut major, mut minor) = (0, 0);
                    (f(dev, &mut major, &mut minor) == NVML_SUCCESS && major > 0)
                        .then(|| ComputeCapability::new(major as u32, minor.max(0) as u32))
                });
            let memory_total_mib = lib
                .get::<unsafe extern "C" fn(NvmlDevice, *mut [u64; 3]) -> NvmlReturn>(
                    b"nvmlDeviceGetMemoryInfo\0",
                )
                .ok()
                .and_then(|f| {
                    let mut mem = [0u64; 3];
                    (f(dev, &mut mem) == NVML_SUCCESS).then(|| mem[0] / (1024 * 1024))
                });
            // nvmlPciInfo_t (v3): busIdLegacy[16], 5 x u32, busId[32]; a larger buffer is harmless.
            let pci_bus_id = lib
                .get::<unsafe extern "C" fn(NvmlDevice, *mut [u8; 128]) -> NvmlReturn>(
                    b"nvmlDeviceGetPciInfo_v3\0",
                )
                .ok()
                .and_then(|f| {
                    let mut info = [0u8; 128];
                    (f(dev, &mut info) == NVML_SUCCESS)
                        .then(|| info.get(36..68).and_then(c_string))
                        .flatten()
                })
                .filter(|s| s.contains(':') && s.contains('.'));
            facts.gpus.push(NvmlGpu {
                index,
                name: dev_str(dev, b"nvmlDeviceGetName\0"),
                uuid: dev_str(dev, b"nvmlDeviceGetUUID\0"),
                pci_bus_id,
                cc,
                memory_total_mib,
            });
        }
        if let Ok(shutdown) = lib.get::<unsafe extern "C" fn() -> NvmlReturn>(b"nvmlShutdown\0") {
            shutdown();
        }
        std::mem::forget(lib);
        Some(facts)
    }
}

/// The driver version inside NVML's own version string (`12.535.261.03` -> `535.261.03`).
pub fn driver_from_nvml_version(nvml_version: &str) -> Option<Version> {
    let (_, rest) = nvml_version.split_once('.')?;
    let v: Version = rest.parse().ok()?;
    (v.major() >= 100).then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nvml_version_string_carries_the_driver_version() {
        // Captured: nvmlSystemGetNVMLVersion -> '12.535.261.03' with no kernel module loaded.
        assert_eq!(
            driver_from_nvml_version("12.535.261.03")
                .map(|v| v.to_string())
                .as_deref(),
            Some("535.261.03")
        );
        assert_eq!(driver_from_nvml_version("12"), None);
        assert_eq!(driver_from_nvml_version("garbage.x"), None);
    }

    #[test]
    fn timeout_abandons_slow_work() {
        let slow = start(Duration::from_millis(20), || {
            thread::sleep(Duration::from_secs(2));
            1
        });
        assert_eq!(slow.and_then(Pending::wait), None);
        let quick = start(Duration::from_secs(2), || 7);
        assert_eq!(quick.and_then(Pending::wait), Some(7));
    }
}
