"""gibbs."""
