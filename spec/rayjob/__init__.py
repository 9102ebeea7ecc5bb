"""The KubeRay RayJob controller (docstring written below)."""
