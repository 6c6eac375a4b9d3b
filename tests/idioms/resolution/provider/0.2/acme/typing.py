"""Its V1 helpers are gone."""
