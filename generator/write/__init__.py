"""Write: output folders, results.json, up-to-date stamps."""
