CREATE TABLE "secrets_key_check" (
	"id" text PRIMARY KEY NOT NULL,
	"check_value" text NOT NULL,
	"created_at" bigint NOT NULL
);
