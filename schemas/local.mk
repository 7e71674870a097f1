## JSON schemas of leirc's machine-readable outputs (installed in
## $(pkgdatadir)/schemas; man leirc, STEP RECORDS, CHECKING STEPS,
## EVALUATION).
schemasdir = $(pkgdatadir)/schemas
dist_schemas_DATA = schemas/steptp.schema.json schemas/chat.schema.json \
	schemas/eval-result.schema.json schemas/check-step.schema.json
