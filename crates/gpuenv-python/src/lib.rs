//! Parsers for the files a Python environment is made of — dist-info `METADATA`, `RECORD`,
//! `top_level.txt`, `INSTALLER`, `direct_url.json`, egg-info `PKG-INFO`, conda-meta records,
//! `pyvenv.cfg`, conda's `environments.txt` — and for the framework files that say how a build was
//! made (`torch/version.py`, TensorFlow's `build_info.py`, OpenCV's `cv2/version.py`). Requirements
//! and markers are evaluated with real PEP 440 / PEP 508 implementations.
//!
//! Everything here takes text and returns data; the file system belongs to `gpuenv-probe`.

pub mod conda;
pub mod frameworks;
pub mod metadata;
pub mod names;
pub mod pyvenv;
pub mod requirements;

pub use metadata::{parse_metadata, record_entries, top_level_from_record, CoreMetadata};
pub use names::{normalize_name, split_dist_info_name};
pub use requirements::{evaluate_requirement, MarkerContext, RequirementStatus};
