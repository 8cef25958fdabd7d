from django.urls import path
from django.views.decorators.csrf import csrf_exempt

from . import views

urlpatterns = [
    path("", views.index),
    path("hello/<str:name>", views.hello),
    path("echo", csrf_exempt(views.echo)),
    path("stream", views.stream),
    path("plain", views.plain),
]
