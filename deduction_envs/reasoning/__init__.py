"""Knowledge engines for information sets too large to enumerate."""
