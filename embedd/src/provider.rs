//! Execution providers: which hardware runs the model.
//!
//! A provider is chosen once at start. This module owns the names, the order `auto` tries them in
//! and their registration on a session builder; whether one really works is decided by
//! [`crate::model::Model::load_on`], which creates a session and runs a warm-up batch on it.

use std::fmt;
use std::str::FromStr;

use ort::session::builder::SessionBuilder;

/// An execution provider, or `auto`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provider {
    /// Try every provider compiled for this platform, GPU first, and fall back to CPU.
    Auto,
    /// NVIDIA GPUs (needs the `onnxruntime-gpu` library and CUDA/cuDNN).
    Cuda,
    /// Apple's Neural Engine and GPU (macOS).
    CoreMl,
    /// DirectX 12 GPUs (Windows).
    DirectMl,
    /// ONNX Runtime's own CPU kernels: always available.
    Cpu,
}

impl Provider {
    /// The concrete providers `auto` tries, in order: those compiled for this platform, then CPU.
    pub fn auto_order() -> Vec<Provider> {
        [Provider::Cuda, Provider::CoreMl, Provider::DirectMl, Provider::Cpu]
            .into_iter()
            .filter(|p| p.compiled())
            .collect()
    }

    /// Whether this build can register the provider at all on this platform.
    pub fn compiled(self) -> bool {
        match self {
            Provider::Auto | Provider::Cpu => true,
            Provider::Cuda => cfg!(any(target_os = "linux", target_os = "windows")),
            Provider::CoreMl => cfg!(target_os = "macos"),
            Provider::DirectMl => cfg!(target_os = "windows"),
        }
    }

    /// GPU providers compile kernels per input shape, so they get coarse, padded buckets.
    pub fn is_gpu(self) -> bool {
        matches!(self, Provider::Cuda | Provider::CoreMl | Provider::DirectMl)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Auto => "auto",
            Provider::Cuda => "cuda",
            Provider::CoreMl => "coreml",
            Provider::DirectMl => "directml",
            Provider::Cpu => "cpu",
        }
    }

    /// What the provider needs, appended to its errors.
    pub(crate) fn hint(self) -> &'static str {
        match self {
            Provider::Cuda => {
                "the CUDA provider needs the onnxruntime-gpu library (PyPI onnxruntime-gpu; point ORT_DYLIB_PATH at its \
                 capi/libonnxruntime.so.*) and the CUDA 12 and cuDNN 9 libraries on the loader path"
            }
            Provider::CoreMl => {
                "the CoreML provider needs an ONNX Runtime library built with CoreML (the macOS PyPI wheel)"
            }
            Provider::DirectMl => "the DirectML provider needs the onnxruntime-directml library",
            Provider::Auto | Provider::Cpu => "",
        }
    }

    /// Adds the provider to a session builder. CPU needs nothing; `auto` is resolved by the caller.
    pub(crate) fn register(self, builder: &mut SessionBuilder) -> Result<(), RegisterError> {
        match self {
            Provider::Cpu => Ok(()),
            Provider::Auto => Err(RegisterError::Unresolved),
            #[cfg(any(target_os = "linux", target_os = "windows"))]
            Provider::Cuda => {
                ort::ep::ExecutionProvider::register(&ort::ep::CUDA::default(), builder).map_err(RegisterError::Ort)
            }
            #[cfg(target_os = "macos")]
            Provider::CoreMl => {
                ort::ep::ExecutionProvider::register(&ort::ep::CoreML::default(), builder).map_err(RegisterError::Ort)
            }
            #[cfg(target_os = "windows")]
            Provider::DirectMl => {
                ort::ep::ExecutionProvider::register(&ort::ep::DirectML::default(), builder).map_err(RegisterError::Ort)
            }
            #[allow(unreachable_patterns)]
            other => Err(RegisterError::NotCompiled {
                provider: other,
                os: std::env::consts::OS,
                available: Provider::auto_order()
                    .iter()
                    .map(|p| p.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            }),
        }
    }
}

/// Why a provider could not be added to a session builder.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RegisterError {
    /// `auto` reached [`Provider::register`] instead of one of the providers it tries.
    #[error("auto must be resolved to a concrete provider first")]
    Unresolved,
    /// This build has no code for the provider on this platform.
    #[error("{provider} is not compiled into this build for {os} (available: {available})")]
    NotCompiled {
        provider: Provider,
        os: &'static str,
        available: String,
    },
    /// ONNX Runtime refused the provider (the library was built without it, say).
    #[error(transparent)]
    Ort(ort::Error),
}

/// A provider name that is none of the known ones.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown provider {0:?}: use auto, cuda, coreml, directml or cpu")]
pub struct UnknownProvider(pub String);

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Provider {
    type Err = UnknownProvider;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Provider::Auto),
            "cuda" => Ok(Provider::Cuda),
            "coreml" => Ok(Provider::CoreMl),
            "directml" | "dml" => Ok(Provider::DirectMl),
            "cpu" => Ok(Provider::Cpu),
            other => Err(UnknownProvider(other.into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_both_ways_and_unknown_names_are_refused() {
        for provider in [
            Provider::Auto,
            Provider::Cuda,
            Provider::CoreMl,
            Provider::DirectMl,
            Provider::Cpu,
        ] {
            assert_eq!(provider.as_str().parse::<Provider>(), Ok(provider));
        }
        assert_eq!(" CUDA ".parse::<Provider>(), Ok(Provider::Cuda));
        assert!(
            "tpu"
                .parse::<Provider>()
                .unwrap_err()
                .to_string()
                .contains("auto, cuda")
        );
    }

    #[test]
    fn auto_tries_gpus_first_and_ends_with_cpu() {
        let order = Provider::auto_order();
        assert_eq!(order.last(), Some(&Provider::Cpu));
        assert!(!order.contains(&Provider::Auto));
        #[cfg(target_os = "linux")]
        assert_eq!(order, vec![Provider::Cuda, Provider::Cpu]);
    }
}
