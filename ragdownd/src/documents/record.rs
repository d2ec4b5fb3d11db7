//! What a document operation tells the history before it touches the disk: each file it is about
//! to create, replace or delete (with the bytes before and after), the folders it is about to
//! make, and a tree it is about to remove. The history's `Change` implements it; this module only
//! names it, so that the file code stands below the history that records it.

use std::path::Path;

use super::DocError;

/// Where a document operation records each step before making it. A step that is refused or fails
/// after it was recorded is taken back with [`Record::forget_last`].
pub trait Record {
    /// The file at `abs` goes from `before` to `after` (`None`: no file).
    fn file(&self, abs: &Path, before: Option<&[u8]>, after: Option<&[u8]>) -> Result<(), DocError>;
    /// The folders between the docs dir and `abs`'s parent that are missing are about to be made.
    fn mkdirs(&self, abs: &Path) -> Result<(), DocError>;
    /// Everything under the folder `abs` is about to be deleted.
    fn removing_tree(&self, abs: &Path) -> Result<(), DocError>;
    /// The last step was not made after all.
    fn forget_last(&self);
}

/// Records nothing: for the file code's own tests.
#[cfg(test)]
pub struct Unrecorded;

#[cfg(test)]
impl Record for Unrecorded {
    fn file(&self, _: &Path, _: Option<&[u8]>, _: Option<&[u8]>) -> Result<(), DocError> {
        Ok(())
    }
    fn mkdirs(&self, _: &Path) -> Result<(), DocError> {
        Ok(())
    }
    fn removing_tree(&self, _: &Path) -> Result<(), DocError> {
        Ok(())
    }
    fn forget_last(&self) {}
}
