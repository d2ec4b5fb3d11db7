//! Generates the gRPC client and server from `embedd/v1/embedd.proto` (needs `protoc`).

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=embedd/v1/embedd.proto");
    tonic_prost_build::configure()
        .file_descriptor_set_path(std::path::PathBuf::from(std::env::var("OUT_DIR")?).join("embedd_descriptor.bin"))
        .compile_protos(&["embedd/v1/embedd.proto"], &["."])?;
    Ok(())
}
