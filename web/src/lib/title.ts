//! The window title: "<page> · ragdown".
import { useEffect } from "react";

export function useTitle(page: string | undefined): void {
  useEffect(() => {
    document.title = page ? `${page} · ragdown` : "ragdown";
  }, [page]);
}
