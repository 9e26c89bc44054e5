// Every string the web app shows, in one place, so another language is one more module of the same shape.
export const zhCN = {
  http: {
    400: '请求参数错误（400）',
    401: '未登录或登录已过期（401）',
    403: '没有权限访问（403）',
    404: '请求的资源不存在（404）',
    500: '服务器异常，请联系管理员（500）',
    502: '网关错误，请稍后再试（502）',
    503: '服务暂时不可用，请稍后再试（503）',
  } as Record<number, string>,
  requestAborted: 'Request aborted',
  /** What a user sees instead of a server message that must never reach them. */
  fetchFailedTryLater: '获取失败，稍后再试',
  genericFailure: (status: number, statusText: string) => `请求失败（${status}${statusText ? ` ${statusText}` : ''}）`,
};

export type Messages = typeof zhCN;
export const messages: Messages = zhCN;
