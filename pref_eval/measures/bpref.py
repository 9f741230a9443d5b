"""(family to be written)"""
