//! Any path the app does not know.
import { Link } from "@tanstack/react-router";
import { Empty } from "../components/ui/states";
import { useTitle } from "../lib/title";

export function NotFound() {
  useTitle("Not found");
  return (
    <Empty title="Nothing here">
      <p>This address is not a page of ragdown.</p>
      <Link to="/" className="mt-3 inline-block text-accent-600 underline">
        Open your folders
      </Link>
    </Empty>
  );
}
