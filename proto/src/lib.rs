//! The gRPC contract between ragdownd and embedd, generated from `embedd/v1/embedd.proto`.

/// `embedd.v1`: messages, the `Embedder` client and server.
pub mod embedd_v1 {
    #![allow(clippy::all, missing_docs)]
    tonic::include_proto!("embedd.v1");
}

/// The encoded file descriptor set, for gRPC server reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] = tonic::include_file_descriptor_set!("embedd_descriptor");

#[cfg(test)]
mod tests {
    use super::embedd_v1::{EmbedRequest, Lane, TextKind};
    use prost::Message;

    #[test]
    fn messages_round_trip_through_the_wire_format() {
        let request = EmbedRequest {
            texts: vec!["a".into(), "b c".into()],
            kind: TextKind::Query as i32,
            lane: Lane::Interactive as i32,
        };
        let decoded = EmbedRequest::decode(request.encode_to_vec().as_slice()).unwrap();
        assert_eq!(decoded, request);
        assert!(!super::FILE_DESCRIPTOR_SET.is_empty());
    }
}
