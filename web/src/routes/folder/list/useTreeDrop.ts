//! Drag and drop in the tree: a row (when writable) drags its path, and a directory row (or the
//! tree itself, for the folder's top) takes the drop and moves what was dragged there.
import { useState, type DragEvent } from "react";
import type { Folder } from "../../../api/client";
import { moveTarget } from "./tree";
import { useMove } from "./useMove";

const DRAG_TYPE = "application/x-ragdown-path";

export function useTreeDrop(folder: Folder, selected: string | undefined) {
  const move = useMove(folder, selected);
  const [dragging, setDragging] = useState<string | undefined>(undefined);
  /** The directory the drag is over and would land in ("" for the folder's top). */
  const [dropDir, setDropDir] = useState<string | undefined>(undefined);

  const dragStart = (path: string) => (e: DragEvent) => {
    e.dataTransfer.setData(DRAG_TYPE, path);
    e.dataTransfer.effectAllowed = "move";
    setDragging(path);
  };
  // A row takes the events over it whether or not it accepts the drop, so a drop on the dragged
  // file's own directory is refused rather than falling through to the folder's top.
  const dropOn = (dir: string) => ({
    onDragOver: (e: DragEvent) => {
      if (!dragging) return;
      e.stopPropagation();
      if (moveTarget(dragging, dir) === null) {
        setDropDir(undefined);
        return;
      }
      e.preventDefault();
      e.dataTransfer.dropEffect = "move";
      setDropDir(dir);
    },
    onDrop: (e: DragEvent) => {
      const from = e.dataTransfer.getData(DRAG_TYPE) || dragging;
      e.preventDefault();
      e.stopPropagation();
      setDropDir(undefined);
      setDragging(undefined);
      if (from && moveTarget(from, dir) !== null) void move(from, dir);
    },
  });
  const dragEnd = () => {
    setDragging(undefined);
    setDropDir(undefined);
  };
  /** The tree's `onDragLeave`: the drag left the tree, not only one of its rows. */
  const leave = (e: DragEvent) => {
    if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setDropDir(undefined);
  };
  return { dropDir, dragStart, dropOn, dragEnd, leave };
}
