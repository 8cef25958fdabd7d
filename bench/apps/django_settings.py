"""bench/run's Django settings (django-json): no database, no middleware, one URL module."""
SECRET_KEY = "apx-bench-not-secret"
DEBUG = False
ALLOWED_HOSTS = ["*"]
ROOT_URLCONF = "django_app"
INSTALLED_APPS = []
MIDDLEWARE = []
DATABASES = {}
USE_TZ = True
