"""The explainer's Panel app: a param adapter over the model, and views that only draw what it says."""
