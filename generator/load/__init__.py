"""Load: YAML read safely, specs validated against their schemas, catalog references resolved."""
