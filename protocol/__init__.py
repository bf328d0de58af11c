"""Talking to engines: async UCI and UCCI clients and the process manager."""
