//! The entry point: the query client (a 4xx is never retried, other failures twice; queries
//! refetch on window focus), the router, the app's providers, and the reader's CJK fonts.
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { RouterProvider } from "@tanstack/react-router";
import { retryable } from "./api/client";
import { applyCjkFonts } from "./lib/cjkFont";
import { router } from "./router";
import "./index.css";

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A 4xx is the server's answer, not a glitch: never retried. Other failures twice.
      retry: (count, error) => retryable(error) && count < 2,
      refetchOnWindowFocus: true,
    },
  },
});

applyCjkFonts();

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} context={{ queryClient }} />
    </QueryClientProvider>
  </StrictMode>,
);
