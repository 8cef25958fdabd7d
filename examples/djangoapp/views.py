import json

from django.http import HttpResponse, JsonResponse, StreamingHttpResponse


async def index(request):
    return HttpResponse("Hello from Django", content_type="text/plain")


async def hello(request, name):
    return JsonResponse({"hello": name, "method": request.method, "query": request.GET.get("q")})


async def echo(request):
    return JsonResponse({"received": json.loads(request.body or b"null")})


async def stream(request):
    async def parts():
        for i in range(3):
            yield f"part {i}\n"
    return StreamingHttpResponse(parts(), content_type="text/plain")


def plain(request):
    """A synchronous view: what a WSGI deployment runs without an async-to-sync hop."""
    return HttpResponse("Hello from Django", content_type="text/plain")
