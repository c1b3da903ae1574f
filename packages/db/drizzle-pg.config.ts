import { defineConfig } from "drizzle-kit";

/** The PostgreSQL schema's migrations (`npm run generate:pg`); SQLite's are in drizzle.config.ts. */
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/tables/pg.ts",
  out: "./drizzle-pg",
});
