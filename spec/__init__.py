"""Systems specified with `checker`: `spec.rayjob` is the KubeRay RayJob controller."""
