"""Present: prose, figures, math, HTML and PDF drawn from the evaluated report model."""
