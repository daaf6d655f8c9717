"""The project-level app: plain helpers shared by the three interface apps, and the
management commands that serve all of them (create_api_key, create_demo_user)."""
