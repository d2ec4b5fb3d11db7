//! A settings file that holds one JSON object: `.ragdown-server.json` and each folder's
//! `.ragdown.json`. People edit these by hand, so a change rewrites the object it read with only
//! the keys the change touches altered and every other key kept, including keys this version does
//! not know. The read, the change and the write happen under the file's lock (the one the
//! document writes take, across processes too) and the write is atomic, so two changes never
//! undo each other and a crash leaves the old file or the new one.

use std::path::Path;

use serde_json::{Map, Value};

use crate::documents::{atomic_write, with_path_lock};
use crate::error::{ErrorKind, Kinded};

/// Why a settings file could not be read or changed.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The file is there but holds no JSON object; a change would lose what it says.
    #[error("{file} is not a JSON object ({reason}); fix or remove it first")]
    Broken {
        file: String,
        #[source]
        reason: ReadError,
    },
    /// The change itself was refused.
    #[error("{0}")]
    Refused(String),
    /// The file system failed.
    #[error("cannot write {file}: {source}")]
    Io {
        file: String,
        #[source]
        source: std::io::Error,
    },
}

impl Kinded for FileError {
    /// What kind of failure this is.
    fn kind(&self) -> ErrorKind {
        match self {
            Self::Refused(_) => ErrorKind::Invalid,
            Self::Broken { .. } => ErrorKind::Conflict,
            Self::Io { .. } => ErrorKind::Internal,
        }
    }
}

/// Why a settings file that is there could not be read as a JSON object.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// It could not be read.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// It is not JSON.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// It is JSON, but not an object.
    #[error("not an object")]
    NotAnObject,
}

/// Reads the object in `path`: `Ok(None)` when there is no file, `Err` with the reason when the
/// file is not a JSON object.
pub fn read_object(path: &Path) -> Result<Option<Map<String, Value>>, ReadError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(err.into()),
    };
    match serde_json::from_str::<Value>(&text)? {
        Value::Object(map) => Ok(Some(map)),
        _ => Err(ReadError::NotAnObject),
    }
}

/// Changes the object in `path` through `change` (a missing file is an empty object) and writes
/// it back; with `remove_when_empty`, an object left empty removes the file instead. Returns the
/// object as written. A refusal from `change` (its error, usually [`FileError::Refused`]), or a
/// broken file, writes nothing.
pub fn update_object(
    path: &Path,
    remove_when_empty: bool,
    change: impl FnOnce(&mut Map<String, Value>) -> Result<(), FileError>,
) -> Result<Map<String, Value>, FileError> {
    let file = path.display().to_string();
    with_path_lock(path, || {
        let mut object = read_object(path)
            .map_err(|reason| FileError::Broken {
                file: file.clone(),
                reason,
            })?
            .unwrap_or_default();
        change(&mut object)?;
        let io = |source| FileError::Io {
            file: file.clone(),
            source,
        };
        if object.is_empty() && remove_when_empty {
            match std::fs::remove_file(path) {
                Ok(()) => {}
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
                Err(err) => return Err(io(err)),
            }
        } else {
            let text = format!("{:#}\n", Value::Object(object.clone()));
            atomic_write(path, text.as_bytes()).map_err(io)?;
        }
        Ok(object)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_change_keeps_every_other_key_and_an_empty_object_can_remove_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        assert!(matches!(read_object(&path), Ok(None)));
        std::fs::write(&path, r#"{"keep":{"a":1},"x":2}"#).unwrap();
        let written = update_object(&path, true, |object| {
            object.insert("x".into(), json!(3));
            Ok(())
        })
        .unwrap();
        assert_eq!(Value::Object(written), json!({"keep": {"a": 1}, "x": 3}));
        let on_disk: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(on_disk, json!({"keep": {"a": 1}, "x": 3}));

        update_object(&path, true, |object| {
            object.clear();
            Ok(())
        })
        .unwrap();
        assert!(!path.exists());
        update_object(&path, false, |_| Ok(())).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{}\n");
    }

    #[test]
    fn a_broken_file_or_a_refused_change_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        for broken in ["{nope", "[1]"] {
            std::fs::write(&path, broken).unwrap();
            let err = update_object(&path, true, |_| Ok(())).unwrap_err();
            assert!(matches!(err, FileError::Broken { .. }), "{err}");
            assert_eq!(std::fs::read_to_string(&path).unwrap(), broken);
        }
        std::fs::write(&path, r#"{"a":1}"#).unwrap();
        let err = update_object(&path, true, |object| {
            object.insert("a".into(), json!(2));
            Err(FileError::Refused("no".into()))
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "no");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), r#"{"a":1}"#);
    }
}
